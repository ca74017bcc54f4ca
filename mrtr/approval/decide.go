package approval

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Refusal codes: why a decision (or a link) was refused. Nothing is
// recorded but the refusal itself (an EventRefused on the record, when
// there is one).
const (
	CodeNotFound        = "not_found"       // no such approval (or swept)
	CodeBadLink         = "bad_link"        // forged, tampered, for another server or another action
	CodeUnauthenticated = "unauthenticated" // nobody signed in
	CodeRequester       = "requester"       // the requester may not decide this way
	CodeNotApprover     = "not_approver"    // not among the admitted approvers
	CodeAlreadyDecided  = "already_decided" // this approver decided before (a replayed link or form)
	CodeClosed          = "closed"          // the record is approved, declined, expired or withdrawn
	CodeDeadline        = "deadline"        // the deadline passed
	CodeDigest          = "digest"          // the decision names another action
	CodePending         = "pending"
	CodeConsumed        = "consumed"
	CodeNotRequester    = "not_requester"
)

// Refusal is a decision or a use of a link the record or the policy
// refuses. Message is safe to show to the person deciding.
type Refusal struct {
	Code    string
	Message string
}

func (r *Refusal) Error() string { return "approval refused (" + r.Code + "): " + r.Message }

func refuse(code, msg string) *Refusal { return &Refusal{Code: code, Message: msg} }

// Decide is one person's decision on one approval.
type Decide struct {
	// ID is the approval's id.
	ID string
	// Digest, when set (the page and the API set it from the link), must
	// be the record's: a decision is about exactly that action.
	Digest string
	// Approver is the authenticated principal deciding.
	Approver string
	Approve  bool
	Reason   string
	Channel  Channel
}

// Decide records d if the policy admits it: the record is pending, its
// deadline has not passed on this instance's clock, d.Approver is admitted
// (the requester only where the policy lets them, never twice), and
// d.Digest, when set, is the record's. It returns the record as it stands
// after the decision, or with a *Refusal as it stands without it. One
// decline declines the record; it is approved when Policy.Count distinct
// approvers approved.
func (s *Service) Decide(ctx context.Context, d Decide) (*Record, error) {
	ctx, span := s.tracer.Start(ctx, "approval.decide", trace.WithAttributes(attribute.String("mrtr.approval.id", d.ID), attribute.String("mrtr.approval.channel", string(d.Channel)), attribute.Bool("mrtr.approval.approve", d.Approve)))
	defer span.End()
	var refusal *Refusal
	rec, err := s.update(ctx, d.ID, func(rec *Record, now time.Time) error {
		refusal = nil
		expired := s.expireIfDue(rec, now)
		r := check(rec, d, expired)
		if r == nil {
			decide(rec, d, now)
			return nil
		}
		refusal = r
		if r.Code == CodeDigest || r.Code == CodeNotFound || rec.refusals() >= maxRefusedEvents {
			return r
		}
		// Keep the refusal in the audit: who tried what, and why not.
		rec.Events = append(rec.Events, Event{At: now, Kind: EventRefused, Actor: d.Approver, Channel: d.Channel, Detail: r.Code})
		return nil
	})
	if errors.Is(err, store.ErrNotFound) {
		refusal, err = refuse(CodeNotFound, "no such approval (it may have been removed after its retention)"), nil
	}
	if err != nil && !errors.As(err, &refusal) {
		return nil, s.fail(span, err)
	}
	if refusal != nil {
		span.SetAttributes(attribute.String("mrtr.approval.refused", refusal.Code))
		s.log.LogAttrs(ctx, slog.LevelWarn, "approval decision refused", slog.String("approval", d.ID), slog.String("approver", d.Approver), slog.String("channel", string(d.Channel)), slog.String("code", refusal.Code))
		return rec, refusal
	}
	span.SetAttributes(attribute.String("mrtr.approval.state", string(rec.State)))
	s.log.LogAttrs(ctx, slog.LevelInfo, "approval decision", slog.String("approval", d.ID), slog.String("approver", d.Approver), slog.String("channel", string(d.Channel)), slog.Bool("approve", d.Approve), slog.String("state", string(rec.State)))
	return rec, nil
}

// maxRefusedEvents bounds the refusals a record's audit keeps: whoever
// holds a link and signs in can try to decide as often as they like, and
// each refusal would otherwise grow the record (and every later write of
// it). Refusals past the bound are still refused, logged and traced.
const maxRefusedEvents = 100

// refusals counts the refusals in the record's audit.
func (r *Record) refusals() int {
	n := 0
	for _, e := range r.Events {
		if e.Kind == EventRefused {
			n++
		}
	}
	return n
}

func check(rec *Record, d Decide, expired bool) *Refusal {
	switch {
	case d.Digest != "" && d.Digest != rec.Digest:
		return refuse(CodeDigest, "this decision is about another action")
	case expired || rec.State == Expired:
		return refuse(CodeDeadline, fmt.Sprintf("the deadline passed at %s", rec.Deadline.UTC().Format(time.RFC3339)))
	case rec.DecidedBy(d.Approver) && d.Approver != "":
		return refuse(CodeAlreadyDecided, "you decided this request already")
	case rec.State != Pending:
		return refuse(CodeClosed, "this request is "+string(rec.State)+" already")
	}
	return admits(rec, d.Approver, d.Channel)
}

func decide(rec *Record, d Decide, now time.Time) {
	rec.Decisions = append(rec.Decisions, Decision{Approver: d.Approver, Approve: d.Approve, Reason: d.Reason, Channel: d.Channel, At: now})
	kind := EventDeclined
	if d.Approve {
		kind = EventApproved
	}
	rec.Events = append(rec.Events, Event{At: now, Kind: kind, Actor: d.Approver, Channel: d.Channel, Reason: d.Reason})
	switch {
	case !d.Approve:
		rec.State = Declined
	case rec.Approvals() >= rec.Policy.Count:
		rec.State = Approved
	default:
		return
	}
	rec.DecidedAt = now
	rec.left()
	if d.Approver != rec.Requester {
		rec.Outbox = append(rec.Outbox, outboxEntry{Kind: NoticeDecided, To: []string{rec.Requester}})
	}
}

// Links. A link to the approval page is the handler's URL, the record id
// and a token sealed by the engine's codec, bound to the audience, the
// record and its digest, expiring at the deadline: a forged or tampered
// token, one for another action, server or record does not open. The link
// names the request; the person opening it must still sign in and be
// admitted, and decides once.

func (s *Service) binding(rec *Record) (seal.Binding, error) {
	var b seal.Binding
	d, err := hex.DecodeString(rec.Digest)
	if err != nil || len(d) != len(b.ArgsDigest) {
		return b, fmt.Errorf("approval: record %s has a malformed digest", rec.ID)
	}
	b.Audience, b.Subject = s.cfg.Audience, "approval:"+rec.ID
	copy(b.ArgsDigest[:], d)
	return b, nil
}

// Link returns the approval page's URL for rec.
func (s *Service) Link(rec *Record) (string, error) {
	b, err := s.binding(rec)
	if err != nil {
		return "", err
	}
	// The token outlives the deadline by a day so that a late visitor is
	// told the deadline passed rather than that the link is bad; the record
	// refuses the late decision either way.
	ttl := rec.Deadline.Add(24 * time.Hour).Sub(s.cfg.Now())
	if ttl < time.Second {
		ttl = time.Second
	}
	tok, err := s.cfg.Codec.Seal(b, ttl, []byte("approval-link"))
	if err != nil {
		return "", err
	}
	u := *s.base
	u.Path += "/" + rec.ID
	u.RawQuery = url.Values{"t": {tok}}.Encode()
	return u.String(), nil
}

// OpenLink returns the record a link's id and token name, or a *Refusal
// (CodeNotFound, CodeBadLink).
func (s *Service) OpenLink(ctx context.Context, id, token string) (*Record, error) {
	rec, err := s.Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, refuse(CodeNotFound, "no such approval (it may have been removed after its retention)")
	}
	if err != nil {
		return nil, err
	}
	b, err := s.binding(rec)
	if err != nil {
		return nil, err
	}
	if _, err := s.cfg.Codec.Open(b, token); err != nil {
		return nil, refuse(CodeBadLink, "this link is not valid for this request (forged, altered, expired or for another server)")
	}
	return rec, nil
}
