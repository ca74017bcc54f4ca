package mrtrtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/approval"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Approvals in tests. A harness keeps the approvals of approval gates on
// its own store and clock; a test decides them as another principal, as
// the approval page would (Harness.Decide), or lets the clock pass their
// deadline.

// ApprovalsURL is where a harness's approval links point.
const ApprovalsURL = PublicURL + "/approvals"

// latestApproval remembers the approvals a harness's store inserted, so a
// test can decide the one its workflow waits for without a link.
type latestApproval struct {
	store.ApprovalStore
	mu  sync.Mutex
	ids []string
}

func (l *latestApproval) InsertApproval(ctx context.Context, row store.ApprovalRow) error {
	err := l.ApprovalStore.InsertApproval(ctx, row)
	if err == nil {
		l.mu.Lock()
		l.ids = append(l.ids, row.ID)
		l.mu.Unlock()
	}
	return err
}

func (l *latestApproval) latest() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.ids) == 0 {
		return ""
	}
	return l.ids[len(l.ids)-1]
}

func (h *Harness[F]) newApprovals(t testing.TB, codec *seal.Codec, log *slog.Logger) {
	st, ok := h.Store.(store.ApprovalStore)
	if !ok {
		return
	}
	h.approvals = &latestApproval{ApprovalStore: st}
	svc, err := approval.New(approval.Config{
		Store: h.approvals, Codec: codec, Audience: Audience, URL: ApprovalsURL,
		Notifier: approval.LogNotifier{Logger: log}, Logger: log,
		Now: func() time.Time { return h.Clock.Now().Add(h.late) },
	})
	if err != nil {
		t.Fatal(err)
	}
	h.Approvals = svc
}

// ErrNoApproval is Approval's error when no workflow of the harness asked
// for an approval yet.
var ErrNoApproval = errors.New("mrtrtest: no approval was requested on this harness")

// Approval returns the approval requested last on the harness.
func (h *Harness[F]) Approval(ctx context.Context) (*approval.Record, error) {
	if h.approvals == nil || h.approvals.latest() == "" {
		return nil, ErrNoApproval
	}
	return h.Approvals.Get(ctx, h.approvals.latest())
}

// Decide decides the approval requested last as approver, on the JSON
// API's channel, as the approval page would: the policy's checks apply (a
// *approval.Refusal says why one is refused).
func (h *Harness[F]) Decide(ctx context.Context, approver string, approve bool, reason string) (*approval.Record, error) {
	rec, err := h.Approval(ctx)
	if err != nil {
		return nil, err
	}
	return h.Approvals.Decide(ctx, approval.Decide{ID: rec.ID, Digest: rec.Digest, Approver: approver, Approve: approve, Reason: reason, Channel: approval.ChannelAPI})
}

// Approvers returns principals who may approve rec, other than its
// requester, enough for its policy's count: those the hook resolved, or
// made-up ones ("approver-1", …) when the policy admits anyone signed in.
func Approvers(rec *approval.Record) []string {
	var out []string
	for _, p := range rec.Approvers {
		if p != rec.Requester {
			out = append(out, p)
		}
	}
	if rec.Approvers == nil {
		for i := range max(rec.Policy.Count, 1) {
			out = append(out, "approver-"+strconv.Itoa(i+1))
		}
	}
	return out
}

// PassDeadline moves the approvals' clock (not the harness's Clock, which
// seals requestState) to d after the deadline of the approval requested
// last: it is past for every decision and round from now on (d 0: the
// deadline itself), while the workflow's requestState stays fresh, as if
// the client had called again after the wait with a new one.
func (h *Harness[F]) PassDeadline(ctx context.Context, d time.Duration) error {
	rec, err := h.Approval(ctx)
	if err != nil {
		return err
	}
	h.late = rec.Deadline.Add(d).Sub(h.Clock.Now())
	return nil
}

// SettleApproval settles the approval requested last as a script round
// says (ScriptRound.Approval): "approve" has admitted approvers approve
// until the policy's count is reached (Approvers), "decline" has one
// decline, "expire" passes its deadline (PassDeadline).
func (h *Harness[F]) SettleApproval(ctx context.Context, how string) error {
	rec, err := h.Approval(ctx)
	if err != nil {
		return err
	}
	switch how {
	case "expire":
		return h.PassDeadline(ctx, 0)
	case "decline":
		if rec.State == approval.Declined {
			return nil // settled before (a round sent again)
		}
		approvers := Approvers(rec)
		if len(approvers) == 0 {
			return fmt.Errorf("mrtrtest: approval %s admits nobody but its requester", rec.ID)
		}
		_, err := h.Decide(ctx, approvers[0], false, "mrtrtest declines")
		return err
	case "approve":
		for _, p := range Approvers(rec) {
			if rec.State != approval.Pending {
				break
			}
			if rec, err = h.Decide(ctx, p, true, "mrtrtest approves"); err != nil {
				return err
			}
		}
		if rec.State != approval.Approved {
			return fmt.Errorf("mrtrtest: approval %s is %s after %d approvals; its policy wants %d", rec.ID, rec.State, rec.Approvals(), rec.Policy.Count)
		}
		return nil
	}
	return fmt.Errorf("mrtrtest: no way to settle an approval %q (approve, decline, expire)", how)
}

// ApprovalAt plays walk, which ends at an approval gate, and there checks
// what the approval guarantees, each on a new fake (docs/approvals.md):
//
//   - whom the policy refuses decides nothing: the requester of a
//     four-eyes approval, a principal the hook did not return, a decision
//     about another action; the requester's own "yes" to the gate's form
//     (where the policy keeps them out of the chat) and, for a
//     non-interactive tool, a "yes" given up front in its inputs argument
//     pass nothing: the workflow still waits and no side effect runs;
//   - an approver decides once: the same decision again (a replayed link
//     or form) is refused;
//   - the deadline: approvals a second before it pass the gate; a
//     decision at it is refused and the workflow leaves the gate as
//     expired.
func (w *Walker[F]) ApprovalAt(t *testing.T, walk string, arms ...Arms) {
	t.Helper()
	d := w.descriptor()
	t.Run("at "+lastState(walk)+": approval", func(t *testing.T) {
		t.Run("refuses whom the policy refuses", func(t *testing.T) { w.approvalRefusals(t, d, walk, arms) })
		t.Run("before the deadline", func(t *testing.T) { w.approvalDeadline(t, d, walk, arms, -time.Second) })
		t.Run("at the deadline", func(t *testing.T) { w.approvalDeadline(t, d, walk, arms, 0) })
	})
}

// gateWalk is a workflow played to the approval gate its walk ends at.
type gateWalk[F any] struct {
	t       *testing.T
	h       *Harness[F]
	s       *mrtrimpl.StateInfo
	pl      plan
	state   string // the requestState of the round that waits at the gate
	effects func() int
	before  int // side effects performed on the way
}

func (w *Walker[F]) toGate(t *testing.T, d *mrtrimpl.Descriptor, walk string, arms []Arms) *gateWalk[F] {
	t.Helper()
	pl, s := w.planTo(t, d, walk, arms...)
	if !s.Approval {
		t.Fatalf("walk %q ends at %s, which is not an approval gate", walk, s.Name)
	}
	p, effects := w.fake(pl.outcomes)
	h := New(t, p)
	g := &gateWalk[F]{t: t, h: h, s: s, pl: pl, effects: effects}
	g.state = runScript(t, h, Script{Args: pl.args, Rounds: pl.rounds})
	g.before = effects()
	return g
}

// record is the approval the workflow waits for.
func (g *gateWalk[F]) record() *approval.Record {
	g.t.Helper()
	rec, err := g.h.Approval(context.Background())
	if err != nil {
		g.t.Fatal(err)
	}
	return rec
}

// refused checks that principal's decision is refused with code.
func (g *gateWalk[F]) refused(who string, d approval.Decide, code string) {
	g.t.Helper()
	rec := g.record()
	d.ID, d.Approver, d.Channel = rec.ID, who, approval.ChannelAPI
	if d.Digest == "" {
		d.Digest = rec.Digest
	}
	_, err := g.h.Approvals.Decide(context.Background(), d)
	var r *approval.Refusal
	if !errors.As(err, &r) || r.Code != code {
		g.t.Fatalf("%s deciding approval %s: %v, want it refused (%s)", who, rec.ID, err, code)
	}
}

// waits sends a round to the gate with send and checks that the workflow
// still waits there, with no side effect run.
func (g *gateWalk[F]) waits(what string, args any, state string, send mcp.InputResponseMap) {
	g.t.Helper()
	reply, err := g.h.Call(context.Background(), args, state, send)
	switch {
	case err != nil:
		g.t.Fatalf("%s: %v", what, err)
	case !reply.NeedsInput() || !slices.Equal(keys(reply.InputRequests), askKeys(g.s)):
		g.t.Fatalf("%s: %s, want it to wait at approval gate %s", what, describeReply(reply), g.s.Name)
	case g.effects() != g.before:
		g.t.Fatalf("%s: %d side effects ran at approval gate %s", what, g.effects()-g.before, g.s.Name)
	}
}

func describeReply(reply *mrtr.Reply) string {
	if reply.NeedsInput() {
		return fmt.Sprintf("it asks for %v", keys(reply.InputRequests))
	}
	return fmt.Sprintf("it ended %s (%q)", reply.Final.Outcome, reply.Final.Text)
}

func (w *Walker[F]) approvalRefusals(t *testing.T, d *mrtrimpl.Descriptor, walk string, arms []Arms) {
	g := w.toGate(t, d, walk, arms)
	rec := g.record()
	approvers := Approvers(rec)
	if len(approvers) == 0 {
		t.Fatalf("approval %s admits nobody but its requester: the fake's Approvers hook must return someone else", rec.ID)
	}
	if rec.Policy.Requester == approval.RequesterExcluded {
		g.refused(g.h.Principal, approval.Decide{Approve: true}, approval.CodeRequester)
	}
	if rec.Approvers != nil && !slices.Contains(rec.Approvers, "mrtrtest-outsider") {
		g.refused("mrtrtest-outsider", approval.Decide{Approve: true}, approval.CodeNotApprover)
	}
	g.refused(approvers[0], approval.Decide{Approve: true, Digest: strings.Repeat("0", 64)}, approval.CodeDigest)
	yes := w.answers(t, g.s, "", g.pl.answers)
	if rec.Policy.Requester != approval.RequesterChat {
		g.waits("the requester's own yes to the gate", g.pl.args, g.state, yes)
	}
	if d.NonInteractive {
		g.waits("a yes given up front in the inputs argument", upfrontYes(t, g.pl.args, g.s), "", nil)
	}
	if _, err := g.h.Decide(context.Background(), approvers[0], true, "first"); err != nil {
		t.Fatalf("%s approving: %v", approvers[0], err)
	}
	g.refused(approvers[0], approval.Decide{Approve: true}, approval.CodeAlreadyDecided)
}

// upfrontYes is args with an inputs argument answering gate s yes.
func upfrontYes(t *testing.T, args any, s *mrtrimpl.StateInfo) map[string]any {
	t.Helper()
	raw, err := marshalArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	inputs := map[string]any{}
	for _, q := range s.Requests {
		inputs[q.Key] = true
	}
	m["inputs"] = inputs
	return m
}

// approvalDeadline approves (or tries to) at offset from the deadline:
// before it the gate passes; at it the decision is refused and the
// workflow leaves the gate as expired.
func (w *Walker[F]) approvalDeadline(t *testing.T, d *mrtrimpl.Descriptor, walk string, arms []Arms, offset time.Duration) {
	g := w.toGate(t, d, walk, arms)
	ctx := context.Background()
	if err := g.h.PassDeadline(ctx, offset); err != nil {
		t.Fatal(err)
	}
	rec := g.record()
	settle := g.h.SettleApproval(ctx, "approve")
	reply, err := g.h.Call(ctx, g.pl.args, g.state, w.answers(t, g.s, "", g.pl.answers))
	if err != nil {
		t.Fatal(err)
	}
	gate := slices.Index(reply.Path, g.s.Name)
	next := ""
	if gate >= 0 && gate+1 < len(reply.Path) {
		next = reply.Path[gate+1]
	}
	if offset < 0 {
		if settle != nil || next == "" || next == g.s.Name {
			t.Fatalf("approved %s before the deadline (%v): the round ran %v, %s", rec.ID, settle, reply.Path, describeReply(reply))
		}
		return
	}
	var r *approval.Refusal
	if !errors.As(settle, &r) || r.Code != approval.CodeDeadline {
		t.Fatalf("approving %s at its deadline: %v, want it refused (%s)", rec.ID, settle, approval.CodeDeadline)
	}
	expired := reply.Final != nil && reply.Final.Outcome == vocab.OutcomeExpired
	for _, tr := range d.Transitions {
		if d.State(tr.From) == g.s && tr.On == vocab.Expire {
			expired = next == d.State(tr.To).Name
		}
	}
	if !expired || g.effects() != g.before {
		t.Fatalf("the round after the deadline ran %v, %s, with %d side effects at the gate; want the gate left as expired", reply.Path, describeReply(reply), g.effects()-g.before)
	}
}

// respondOn is respond for a round of h: an approval the reply's gate
// waits for is settled first, as the route leaves the gate (approved,
// declined, or its deadline passed; a cancel withdraws it by the answer).
func respondOn[F any](h *Harness[F], d *mrtrimpl.Descriptor, r *route, reply *mrtr.Reply, leave string) (mcp.InputResponseMap, error) {
	for key := range reply.InputRequests {
		if s := requestOwner(d, key); s != nil && s.Approval {
			how := settling(leave)
			if how == "" {
				break
			}
			if err := h.SettleApproval(context.Background(), how); err != nil {
				return nil, err
			}
			break
		}
	}
	return respond(d, r, reply, leave)
}

// ApproveAs approves, as principal, the approval the workflow waits for
// at an approval gate (on the JSON API's channel, as the page would), then
// sends the next round, as a client that checks again does. A decision
// the policy refuses fails the test, saying why; use Harness.Decide to
// test refusals.
func (d *Driver[F]) ApproveAs(principal, reason string) *Driver[F] {
	d.t.Helper()
	return d.decideAs(principal, true, reason)
}

// DeclineAs declines, as principal, the approval the workflow waits for,
// then sends the next round (see ApproveAs).
func (d *Driver[F]) DeclineAs(principal, reason string) *Driver[F] {
	d.t.Helper()
	return d.decideAs(principal, false, reason)
}

func (d *Driver[F]) decideAs(principal string, approve bool, reason string) *Driver[F] {
	d.t.Helper()
	what := "decline it"
	if approve {
		what = "approve it"
	}
	state := d.next("an approval gate, to " + what + " as " + principal)
	for _, key := range keys(d.reply.InputRequests) {
		if s := requestOwner(d.d, key); s != nil && s.Approval {
			if _, err := d.h.Decide(context.Background(), principal, approve, reason); err != nil {
				d.t.Fatalf("%s, round %d: %s could not %s: %v", d.d.Name, d.round, principal, what, err)
			}
			d.send(state, mcp.InputResponseMap{key: URLAccepted()})
			return d
		}
	}
	d.fail("an approval gate, to "+what+" as "+principal, "")
	return d
}

// settling is how a walk or a route that leaves an approval gate by edge
// label leave settles its approval before the round goes on: approved
// ("" — next), declined, or its deadline passed ("" for a cancel, which
// withdraws it by the answer alone).
func settling(leave string) string {
	return map[string]string{"": "approve", "decline": "decline", "expire": "expire"}[leave]
}
