package approval

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Defaults.
const (
	DefaultDeadline = 24 * time.Hour
	DefaultRetain   = 30 * 24 * time.Hour
	DefaultTick     = 5 * time.Second
	DefaultLease    = 30 * time.Second
	maxNoticeTries  = 5
	maxWakeTries    = 20
	maxUpdateTries  = 16
)

// Config configures a Service.
type Config struct {
	// Store keeps the records; the SQLite, PostgreSQL, Redis and memory
	// stores of package store implement it. Required.
	Store store.ApprovalStore
	// Codec signs the links of the approval page (the engine's codec).
	// Required.
	Codec *seal.Codec
	// Audience names the server; a link signed for another does not open.
	// Required.
	Audience string
	// URL is the absolute URL the approval Handler is mounted at
	// ("https://tools.example.com/approvals"). Required.
	URL string
	// Notifier tells people about approvals; nil logs the notices.
	Notifier Notifier
	// Logger receives one structured event per request, decision,
	// refusal, notice and expiry; nil means slog.Default().
	Logger *slog.Logger
	// TracerProvider defaults to the global OpenTelemetry provider.
	TracerProvider trace.TracerProvider
	// Now is the clock; nil means time.Now. Deadlines are judged on it.
	Now func() time.Time
	// Retain is how long a record is kept after it was created and its
	// deadline passed, for the audit (default 30 days).
	Retain time.Duration
	// Tick is how often Run looks for due timers (default 5 s).
	Tick time.Duration
	// Lease is how long a notice being delivered is left to its instance
	// before another delivers it again (default 30 s).
	Lease time.Duration
	// Resume wakes a task that waits for an approval (Action.Waiter) once
	// the approval is decided, expired or withdrawn: tasks.Manager.Resume.
	// mrtr.NewEngine sets it from Config.Tasks when it is nil.
	Resume func(ctx context.Context, waiter string) error
}

// Service requests, decides and times approvals. It is safe for
// concurrent use; every instance of a server runs one on the same store.
type Service struct {
	cfg    Config
	log    *slog.Logger
	tracer trace.Tracer
	base   *url.URL
}

// New checks cfg and returns a Service.
func New(cfg Config) (*Service, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("approval: Config.Store is required")
	case cfg.Codec == nil:
		return nil, errors.New("approval: Config.Codec is required")
	case cfg.Audience == "":
		return nil, errors.New("approval: Config.Audience is required")
	}
	base, err := url.Parse(cfg.URL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" || base.RawQuery != "" || base.Fragment != "" {
		return nil, fmt.Errorf("approval: Config.URL %q must be an absolute http or https URL without query or fragment", cfg.URL)
	}
	base.Path = strings.TrimSuffix(base.Path, "/")
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Retain <= 0 {
		cfg.Retain = DefaultRetain
	}
	if cfg.Tick <= 0 {
		cfg.Tick = DefaultTick
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if cfg.Notifier == nil {
		cfg.Notifier = LogNotifier{Logger: log}
	}
	tp := cfg.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return &Service{cfg: cfg, log: log.With("component", "approval"), tracer: tp.Tracer("github.com/mrtrgen/mrtrgen/mrtr/approval"), base: base}, nil
}

// Action is what a gate asks approval for.
type Action struct {
	Tool, Gate string
	// Workflow is the workflow asking.
	Workflow string
	// Requester is the authenticated principal asking ("" is refused:
	// an approval needs someone to hold to it).
	Requester string
	// Digest identifies exactly what will be done: the engine hashes the
	// tool, the requester, the canonical arguments, the answers and values
	// carried to the gate, the summary and the policy revision.
	Digest [32]byte
	// Summary is the gate's rendered message.
	Summary string
	// Approvers and Escalation are the principals the handler's hooks
	// resolved for the policy's roles (nil: anyone signed in).
	Approvers, Escalation []string
	// Resolve, when set, resolves them instead, only when a new record is
	// requested (the hooks are not called on the rounds that find it).
	Resolve func(ctx context.Context) (approvers, escalation []string, err error)
	// Waiter, when set, is a task that waits for the record: Config.Resume
	// is called with it when the record leaves Pending.
	Waiter string
}

// ErrNoRequester refuses an approval for an anonymous caller.
var ErrNoRequester = errors.New("approval: an approval needs an authenticated requester")

// Request returns the approval of a's action: the latest record of its
// digest while it is open, or consumed by a.Workflow (a retry of the round
// that took it); otherwise a new pending record, whose approvers the Run
// loop notifies.
func (s *Service) Request(ctx context.Context, a Action, p Policy) (*Record, error) {
	if a.Requester == "" {
		return nil, ErrNoRequester
	}
	ctx, span := s.tracer.Start(ctx, "approval.request", trace.WithAttributes(attribute.String("mcp.tool", a.Tool), attribute.String("mrtr.gate", a.Gate)))
	defer span.End()
	digest := hex.EncodeToString(a.Digest[:])
	for range maxUpdateTries {
		rec, err := s.latest(ctx, digest)
		switch {
		case err == nil && (rec.Requester != a.Requester || rec.Tool != a.Tool || rec.Gate != a.Gate):
			// The digest should bind them: a record of another requester,
			// tool or gate under it is never handed out (fail closed).
			return nil, s.fail(span, fmt.Errorf("approval: digest %s names record %s of another requester, tool or gate", digest, rec.ID))
		case err == nil && (rec.ConsumedBy == "" || rec.ConsumedBy == a.Workflow):
			if rec.lapses() && !s.cfg.Now().Before(rec.Deadline) {
				// Past its deadline, whether or not the timer noticed.
				if rec, err = s.expire(ctx, rec.ID); err != nil {
					return nil, s.fail(span, err)
				}
			}
			span.SetAttributes(attribute.String("mrtr.approval.id", rec.ID), attribute.String("mrtr.approval.state", string(rec.State)))
			if a.Waiter != "" && rec.State == Pending && !slices.Contains(rec.Waiters, a.Waiter) {
				return s.addWaiter(ctx, rec.ID, a.Waiter)
			}
			return rec, nil
		case err != nil && !errors.Is(err, store.ErrNotFound):
			return nil, s.fail(span, err)
		}
		rec, err = s.insert(ctx, a, p, digest)
		if errors.Is(err, store.ErrExists) {
			continue // another round requested the same action meanwhile
		}
		if err != nil {
			return nil, s.fail(span, err)
		}
		span.SetAttributes(attribute.String("mrtr.approval.id", rec.ID), attribute.String("mrtr.approval.state", string(rec.State)))
		s.log.LogAttrs(ctx, slog.LevelInfo, "approval requested", slog.String("approval", rec.ID), slog.String("tool", a.Tool), slog.String("gate", a.Gate), slog.String("workflow", a.Workflow), slog.Time("deadline", rec.Deadline))
		return rec, nil
	}
	return nil, s.fail(span, errors.New("approval: the record kept changing"))
}

func (s *Service) insert(ctx context.Context, a Action, p Policy, digest string) (*Record, error) {
	if p.Count < 1 {
		p.Count = 1
	}
	if p.Deadline <= 0 {
		p.Deadline = DefaultDeadline
	}
	if p.Requester == "" {
		p.Requester = RequesterExcluded
	}
	if a.Resolve != nil {
		var err error
		if a.Approvers, a.Escalation, err = a.Resolve(ctx); err != nil {
			return nil, err
		}
	}
	id, err := seal.NewReference()
	if err != nil {
		return nil, err
	}
	now := s.cfg.Now()
	rec := &Record{
		ID: id, Digest: digest, Tool: a.Tool, Gate: a.Gate, Workflow: a.Workflow, Requester: a.Requester,
		Summary: a.Summary, Policy: p, Approvers: a.Approvers, Escalation: a.Escalation,
		Created: now, Deadline: now.Add(p.Deadline), State: Pending,
		Outbox:  []outboxEntry{{Kind: NoticeRequest, To: a.Approvers}},
		Waiters: waiters(a.Waiter),
		Events:  []Event{{At: now, Kind: EventRequested, Actor: a.Requester, Detail: a.Workflow}},
	}
	row, err := s.row(rec, now)
	if err != nil {
		return nil, err
	}
	if err := s.cfg.Store.InsertApproval(ctx, row); err != nil {
		return nil, err
	}
	rec.version = 1
	return rec, nil
}

func waiters(w string) []string {
	if w == "" {
		return nil
	}
	return []string{w}
}

// addWaiter adds a task waiting for record id; a record that left Pending
// meanwhile is returned as it is (the round takes its outcome at once).
func (s *Service) addWaiter(ctx context.Context, id, waiter string) (*Record, error) {
	rec, err := s.update(ctx, id, func(rec *Record, now time.Time) error {
		if rec.State != Pending || slices.Contains(rec.Waiters, waiter) {
			return errUnchanged
		}
		rec.Waiters = append(rec.Waiters, waiter)
		return nil
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	return rec, err
}

// row encodes rec for the store.
func (s *Service) row(rec *Record, now time.Time) (store.ApprovalRow, error) {
	data, err := json.Marshal(rec)
	if err != nil {
		return store.ApprovalRow{}, err
	}
	return store.ApprovalRow{
		ID: rec.ID, Digest: rec.Digest, Open: rec.ConsumedBy == "",
		Due: rec.nextTimer(now), KeepUntil: rec.Deadline.Add(s.cfg.Retain),
		Version: rec.version, Data: data,
	}, nil
}

func decode(row store.ApprovalRow) (*Record, error) {
	var rec Record
	if err := json.Unmarshal(row.Data, &rec); err != nil {
		return nil, fmt.Errorf("approval: record %s: %w", row.ID, err)
	}
	rec.version = row.Version
	return &rec, nil
}

func (s *Service) latest(ctx context.Context, digest string) (*Record, error) {
	row, err := s.cfg.Store.LatestApproval(ctx, digest)
	if err != nil {
		return nil, err
	}
	return decode(row)
}

// Get returns the record with id (ErrNotFound when there is none).
func (s *Service) Get(ctx context.Context, id string) (*Record, error) {
	row, err := s.cfg.Store.LoadApproval(ctx, id)
	if err != nil {
		return nil, err
	}
	return decode(row)
}

// Audit returns the record's events, oldest first.
func (s *Service) Audit(ctx context.Context, id string) ([]Event, error) {
	rec, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return rec.Events, nil
}

// update applies fn to the latest version of record id and writes it,
// retrying when another instance wrote meanwhile. fn returns a *Refusal to
// refuse without writing (the refusal is returned with the record as it
// stands).
func (s *Service) update(ctx context.Context, id string, fn func(rec *Record, now time.Time) error) (*Record, error) {
	for range maxUpdateTries {
		rec, err := s.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		now := s.cfg.Now()
		if err := fn(rec, now); err != nil {
			return rec, err
		}
		row, err := s.row(rec, now)
		if err != nil {
			return nil, err
		}
		v, err := s.cfg.Store.ReplaceApproval(ctx, row)
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return nil, err
		}
		rec.version = v
		return rec, nil
	}
	return nil, errors.New("approval: the record kept changing")
}

// Consume hands the record's outcome to workflow: an approved record lets
// the gate pass, a declined or expired one ends the workflow. Only one
// workflow consumes a record; consuming it again for the same workflow (a
// retried round) succeeds. A record consumed by another workflow, or
// still pending, is refused.
func (s *Service) Consume(ctx context.Context, id, workflow string) (*Record, error) {
	ctx, span := s.tracer.Start(ctx, "approval.consume", trace.WithAttributes(attribute.String("mrtr.approval.id", id)))
	defer span.End()
	rec, err := s.update(ctx, id, func(rec *Record, now time.Time) error {
		s.expireIfDue(rec, now)
		switch {
		case rec.ConsumedBy == workflow:
			return errUnchanged
		case rec.ConsumedBy != "":
			return refuse(CodeConsumed, "another call already took this approval's outcome")
		case rec.State == Pending:
			return refuse(CodePending, "the approval is still pending")
		}
		rec.ConsumedBy = workflow
		rec.Events = append(rec.Events, Event{At: now, Kind: EventConsumed, Detail: workflow})
		return nil
	})
	if errors.Is(err, errUnchanged) {
		return rec, nil
	}
	if err != nil {
		return rec, s.fail(span, err)
	}
	return rec, nil
}

var errUnchanged = errors.New("unchanged")

// expireIfDue ends a pending record whose deadline passed (the timer may
// not have fired yet: the deadline, not the timer, is the rule).
//
// The deadline bounds the use of an approval too: one approved but not
// taken by a workflow before it expires then (an approval is bound to its
// expiry; a payout approved on Monday is not sent a month later).
func (s *Service) expireIfDue(rec *Record, now time.Time) bool {
	if !rec.lapses() || now.Before(rec.Deadline) {
		return false
	}
	detail := ""
	if rec.State == Approved {
		detail = "approved but not used before the deadline"
	}
	rec.State, rec.DecidedAt = Expired, rec.Deadline
	rec.left()
	rec.Events = append(rec.Events, Event{At: now, Kind: EventExpired, Channel: ChannelTimer, Detail: detail})
	rec.Outbox = append(rec.Outbox, outboxEntry{Kind: NoticeExpired, To: append([]string{rec.Requester}, rec.Undecided()...)})
	return true
}

// expire records the expiry of record id if its deadline passed.
func (s *Service) expire(ctx context.Context, id string) (*Record, error) {
	rec, err := s.update(ctx, id, func(rec *Record, now time.Time) error {
		if !s.expireIfDue(rec, now) {
			return errUnchanged
		}
		return nil
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	return rec, err
}

// Withdraw ends a pending record at the requester's wish (they declined
// or cancelled the link the chat offered).
func (s *Service) Withdraw(ctx context.Context, id, requester string) (*Record, error) {
	rec, err := s.update(ctx, id, func(rec *Record, now time.Time) error {
		s.expireIfDue(rec, now)
		if rec.Requester != requester {
			return refuse(CodeNotRequester, "only the requester may withdraw the request")
		}
		if rec.State != Pending {
			return errUnchanged
		}
		rec.State, rec.DecidedAt = Withdrawn, now
		rec.left()
		rec.Events = append(rec.Events, Event{At: now, Kind: EventWithdrawn, Actor: requester})
		return nil
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	return rec, err
}

func (s *Service) fail(span trace.Span, err error) error {
	var r *Refusal
	if !errors.As(err, &r) {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	return err
}

// admits reports whether the policy lets principal decide rec, and why
// not.
func admits(rec *Record, principal string, ch Channel) *Refusal {
	switch {
	case principal == "":
		return refuse(CodeUnauthenticated, "sign in to decide")
	case principal == rec.Requester && rec.Policy.Requester == RequesterExcluded:
		return refuse(CodeRequester, "someone other than the requester must decide")
	case principal == rec.Requester && ch == ChannelChat && rec.Policy.Requester != RequesterChat:
		return refuse(CodeRequester, "the requester may not approve in the chat")
	case principal != rec.Requester && ch == ChannelChat:
		return refuse(CodeNotApprover, "only the requester answers in the chat")
	}
	// The requester too must be one of the approvers the hook returned,
	// where the policy lets them decide at all.
	if admitted := rec.admitted(); admitted != nil && !slices.Contains(admitted, principal) {
		return refuse(CodeNotApprover, "you are not among the approvers of this request")
	}
	return nil
}
