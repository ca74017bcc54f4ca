package approval

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/testclock"
)

type svcFixture struct {
	svc   *Service
	clock *testclock.Clock
	st    *store.Memory
	sent  *recorder
}

type recorder struct {
	mu      sync.Mutex
	notices []Notice
	fail    int // fail this many calls first
}

func (r *recorder) Notify(_ context.Context, n Notice) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail > 0 {
		r.fail--
		return errors.New("webhook down")
	}
	r.notices = append(r.notices, n)
	return nil
}

func (r *recorder) kinds() []NoticeKind {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ks []NoticeKind
	for _, n := range r.notices {
		ks = append(ks, n.Kind)
	}
	return ks
}

func codec(t *testing.T, now func() time.Time) *seal.Codec {
	t.Helper()
	ring, err := seal.EphemeralRing(func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	return seal.New(ring, seal.Options{Now: now})
}

func newSvcFixture(t *testing.T) *svcFixture {
	t.Helper()
	clock := testclock.New()
	st := store.NewMemory(store.Options{Now: clock.Now})
	rec := &recorder{}
	svc, err := New(Config{Store: st, Codec: codec(t, clock.Now), Audience: "payments", URL: "https://tools.example.com/approvals", Notifier: rec, Now: clock.Now, Tick: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return &svcFixture{svc: svc, clock: clock, st: st, sent: rec}
}

func action(workflow, requester, what string) Action {
	return Action{Tool: "send_payout", Gate: "approve", Workflow: workflow, Requester: requester,
		Digest: sha256.Sum256([]byte(requester + "|" + what)), Summary: "Send " + what + "?", Approvers: []string{"bob", "carol", "dave"}}
}

var fourEyesPolicy = Policy{Role: "finance", Count: 1, Requester: RequesterExcluded, Deadline: 24 * time.Hour, Remind: []time.Duration{time.Hour, 8 * time.Hour}, Revision: "r1"}

func (f *svcFixture) request(t *testing.T, a Action, p Policy) *Record {
	t.Helper()
	rec, err := f.svc.Request(context.Background(), a, p)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func code(err error) string {
	var r *Refusal
	if errors.As(err, &r) {
		return r.Code
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return ""
}

func TestFourEyesApproval(t *testing.T) {
	f, ctx := newSvcFixture(t), context.Background()
	rec := f.request(t, action("w1", "alice", "2000 EUR to Acme"), fourEyesPolicy)
	if rec.State != Pending {
		t.Fatalf("state %s", rec.State)
	}
	// The requester cannot approve their own four-eyes request, on any channel.
	for _, ch := range []Channel{ChannelPage, ChannelAPI, ChannelChat} {
		if _, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "alice", Approve: true, Channel: ch}); code(err) != CodeRequester {
			t.Errorf("alice on %s: %v, want %s", ch, err, CodeRequester)
		}
	}
	// Someone outside the resolved approvers cannot either.
	if _, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "mallory", Approve: true, Channel: ChannelPage}); code(err) != CodeNotApprover {
		t.Errorf("mallory: %v", err)
	}
	// A decision about another action is refused.
	if _, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Digest: strings.Repeat("0", 64), Approver: "bob", Approve: true, Channel: ChannelPage}); code(err) != CodeDigest {
		t.Errorf("other digest: %v", err)
	}
	// Not yet decided: a workflow cannot take it.
	if _, err := f.svc.Consume(ctx, rec.ID, "w1"); code(err) != CodePending {
		t.Errorf("consume pending: %v", err)
	}
	got, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Digest: rec.Digest, Approver: "bob", Approve: true, Reason: "invoice 7", Channel: ChannelPage})
	if err != nil || got.State != Approved {
		t.Fatalf("bob: %v, %v", got.State, err)
	}
	// A replay of the decision is refused, and so is a late second opinion.
	if _, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "bob", Approve: true, Channel: ChannelPage}); code(err) != CodeAlreadyDecided {
		t.Errorf("bob again: %v", err)
	}
	if _, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "carol", Approve: false, Channel: ChannelPage}); code(err) != CodeClosed {
		t.Errorf("carol after: %v", err)
	}
	// One workflow takes the outcome; a retry of it too; another does not.
	if _, err := f.svc.Consume(ctx, rec.ID, "w1"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Consume(ctx, rec.ID, "w1"); err != nil {
		t.Errorf("consume again by w1: %v", err)
	}
	if _, err := f.svc.Consume(ctx, rec.ID, "w2"); code(err) != CodeConsumed {
		t.Errorf("consume by w2: %v", err)
	}
	// The same action asked again later (another call) is a new request;
	// the retry of w1 still finds its own.
	again := f.request(t, action("w2", "alice", "2000 EUR to Acme"), fourEyesPolicy)
	if again.ID == rec.ID || again.State != Pending {
		t.Errorf("a new call got %s (%s), want a new pending record", again.ID, again.State)
	}
	audit, err := f.svc.Audit(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range audit {
		kinds = append(kinds, string(e.Kind)+":"+e.Actor+":"+e.Detail)
	}
	want := "requested:alice:w1 refused:alice:requester refused:alice:requester refused:alice:requester refused:mallory:not_approver approved:bob: refused:bob:already_decided refused:carol:closed consumed::w1"
	if strings.Join(kinds, " ") != want {
		t.Errorf("audit:\n got %s\nwant %s", strings.Join(kinds, " "), want)
	}
}

func TestSameActionFindsThePendingRequest(t *testing.T) {
	f := newSvcFixture(t)
	first := f.request(t, action("w1", "alice", "2000 EUR to Acme"), fourEyesPolicy)
	// Another call of the same action by the same principal (a client that
	// cannot wait, calling again) finds it; another amount or another
	// requester does not.
	if got := f.request(t, action("w9", "alice", "2000 EUR to Acme"), fourEyesPolicy); got.ID != first.ID {
		t.Errorf("same action: new record %s", got.ID)
	}
	if got := f.request(t, action("w9", "alice", "2001 EUR to Acme"), fourEyesPolicy); got.ID == first.ID {
		t.Error("another amount found the first record")
	}
	if got := f.request(t, action("w9", "erin", "2000 EUR to Acme"), fourEyesPolicy); got.ID == first.ID {
		t.Error("another requester found the first record")
	}
}

func TestCountOfDistinctApprovers(t *testing.T) {
	f, ctx := newSvcFixture(t), context.Background()
	p := fourEyesPolicy
	p.Count = 2
	rec := f.request(t, action("w1", "alice", "9000 EUR"), p)
	if got, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "bob", Approve: true, Channel: ChannelPage}); err != nil || got.State != Pending {
		t.Fatalf("one of two: %v %v", got.State, err)
	}
	if _, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "bob", Approve: true, Channel: ChannelAPI}); code(err) != CodeAlreadyDecided {
		t.Errorf("bob twice: %v", err)
	}
	if got, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "carol", Approve: true, Channel: ChannelAPI}); err != nil || got.State != Approved {
		t.Fatalf("two of two: %v %v", got.State, err)
	}
	// One decline is enough to decline.
	rec = f.request(t, action("w2", "alice", "9001 EUR"), p)
	if _, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "bob", Approve: true, Channel: ChannelPage}); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "dave", Approve: false, Reason: "no invoice", Channel: ChannelPage}); got.State != Declined {
		t.Errorf("a decline after one approval: %s", got.State)
	}
}

func TestRequesterRules(t *testing.T) {
	f, ctx := newSvcFixture(t), context.Background()
	// alice is one of the approvers here: the requester decides only as one.
	inRole := func(a Action) Action { a.Approvers = append(a.Approvers, "alice"); return a }
	chat := Policy{Count: 1, Requester: RequesterChat, Deadline: time.Hour}
	rec := f.request(t, inRole(action("w1", "alice", "50 EUR")), chat)
	if got, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "alice", Approve: true, Channel: ChannelChat}); err != nil || got.State != Approved {
		t.Fatalf("requester in chat under chat rule: %v %v", got.State, err)
	}
	page := Policy{Count: 1, Requester: RequesterPage, Deadline: time.Hour}
	rec = f.request(t, inRole(action("w2", "alice", "60 EUR")), page)
	if _, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "alice", Approve: true, Channel: ChannelChat}); code(err) != CodeRequester {
		t.Errorf("requester in chat under page rule: %v", err)
	}
	// Nobody but the requester answers in the chat (the chat is theirs).
	if _, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "bob", Approve: true, Channel: ChannelChat}); code(err) != CodeNotApprover {
		t.Errorf("bob in chat: %v", err)
	}
	if got, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "alice", Approve: true, Channel: ChannelPage}); err != nil || got.State != Approved {
		t.Errorf("requester on the page under page rule: %v %v", got.State, err)
	}
	// An anonymous decision is refused.
	rec = f.request(t, action("w3", "alice", "70 EUR"), page)
	if _, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approve: true, Channel: ChannelAPI}); code(err) != CodeUnauthenticated {
		t.Errorf("anonymous: %v", err)
	}
	if _, err := f.svc.Request(ctx, action("w4", "", "80 EUR"), page); !errors.Is(err, ErrNoRequester) {
		t.Errorf("anonymous request: %v", err)
	}
}

func TestDeadlineOnTheDecidingClock(t *testing.T) {
	f, ctx := newSvcFixture(t), context.Background()
	rec := f.request(t, action("w1", "alice", "2000 EUR"), fourEyesPolicy)
	f.clock.Advance(24*time.Hour - time.Second)
	f.tick(t) // reminders fire; not the deadline yet
	if got, _ := f.svc.Get(ctx, rec.ID); got.State != Pending {
		t.Fatalf("a second before the deadline: %s", got.State)
	}
	f.clock.Advance(time.Second)
	// No timer has run: the decision still refuses, on its own clock.
	if _, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "bob", Approve: true, Channel: ChannelPage}); code(err) != CodeDeadline {
		t.Fatalf("approval at the deadline: %v", err)
	}
	got, err := f.svc.Consume(ctx, rec.ID, "w1")
	if err != nil || got.State != Expired {
		t.Fatalf("consume after the deadline: %v %v", got.State, err)
	}
	if _, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "bob", Approve: true, Channel: ChannelPage}); code(err) != CodeDeadline {
		t.Errorf("approval after expiry: %v", err)
	}
}

func TestTimersRemindEscalateExpireAndNotifyAtLeastOnce(t *testing.T) {
	f, ctx := newSvcFixture(t), context.Background()
	p := fourEyesPolicy
	p.Escalate, p.EscalateRole = 12*time.Hour, "managers"
	a := action("w1", "alice", "2000 EUR")
	a.Escalation = []string{"erin"}
	rec := f.request(t, a, p)
	// erin is not an approver before the escalation.
	if _, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "erin", Approve: true, Channel: ChannelPage}); code(err) != CodeNotApprover {
		t.Errorf("erin before escalation: %v", err)
	}
	f.sent.fail = 1
	if _, err := f.svc.Tick(ctx); err == nil {
		t.Error("a failed notice should be reported by Tick")
	}
	f.clock.Advance(time.Second) // the retry pause
	f.tick(t)
	for _, step := range []time.Duration{time.Hour, 7 * time.Hour, 4 * time.Hour} {
		f.clock.Advance(step)
		f.tick(t)
		f.tick(t) // a second tick finds nothing more: each timer fires once
	}
	if got, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "erin", Approve: false, Channel: ChannelPage}); err != nil || got.State != Declined {
		t.Fatalf("erin after escalation: %v %v", got.State, err)
	}
	f.tick(t)
	want := "request reminder reminder escalation decided"
	if got := joinKinds(f.sent.kinds()); got != want {
		t.Errorf("notices: %s, want %s", got, want)
	}
	// The reminders went to the approvers not yet decided.
	for _, n := range f.sent.notices {
		if n.Kind == NoticeReminder && strings.Join(n.To, ",") != "bob,carol,dave" {
			t.Errorf("reminder to %v", n.To)
		}
		if u, err := url.Parse(n.Link); err != nil || !strings.HasPrefix(n.Link, "https://tools.example.com/approvals/"+rec.ID+"?t=") || u.Query().Get("t") == "" {
			t.Errorf("link %q", n.Link)
		}
	}
	// A record whose deadline passes unanswered is expired by the timer
	// and the requester is told.
	rec2 := f.request(t, action("w2", "alice", "3000 EUR"), Policy{Deadline: time.Hour, Requester: RequesterExcluded})
	f.clock.Advance(time.Hour)
	f.tick(t)
	f.tick(t)
	if got, _ := f.svc.Get(ctx, rec2.ID); got.State != Expired || len(got.Outbox) != 0 {
		t.Errorf("after the deadline: %s, outbox %v", got.State, got.Outbox)
	}
	if k := f.sent.kinds(); k[len(k)-1] != NoticeExpired {
		t.Errorf("last notice %s", k[len(k)-1])
	}
}

func joinKinds(ks []NoticeKind) string {
	var s []string
	for _, k := range ks {
		s = append(s, string(k))
	}
	return strings.Join(s, " ")
}

// An instance that dies while delivering a notice leaves it leased: another
// delivers it after the lease (at least once), and none before.
func TestNoticeOfADeadInstanceIsDeliveredAgain(t *testing.T) {
	f, ctx := newSvcFixture(t), context.Background()
	rec := f.request(t, action("w1", "alice", "2000 EUR"), fourEyesPolicy)
	// The dead instance: it leased the notice and never came back.
	if _, err := f.svc.update(ctx, rec.ID, func(r *Record, now time.Time) error {
		r.Outbox[0].Leased, r.Outbox[0].Tries = now.Add(f.svc.cfg.Lease), 1
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	f.tick(t)
	if n := len(f.sent.kinds()); n != 0 {
		t.Fatalf("delivered during another's lease: %d", n)
	}
	f.clock.Advance(f.svc.cfg.Lease)
	f.tick(t)
	if got := joinKinds(f.sent.kinds()); got != "request" {
		t.Errorf("after the lease: %q", got)
	}
}

func TestLinks(t *testing.T) {
	f, ctx := newSvcFixture(t), context.Background()
	rec := f.request(t, action("w1", "alice", "2000 EUR"), fourEyesPolicy)
	other := f.request(t, action("w2", "alice", "5 EUR"), fourEyesPolicy)
	link, err := f.svc.Link(rec)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(link)
	tok := u.Query().Get("t")
	if got, err := f.svc.OpenLink(ctx, rec.ID, tok); err != nil || got.ID != rec.ID {
		t.Fatalf("open: %v", err)
	}
	flip := []byte(tok)
	flip[len(flip)/2] ^= 1
	otherLink, _ := f.svc.Link(other)
	ou, _ := url.Parse(otherLink)
	cases := map[string][2]string{
		"tampered":         {rec.ID, string(flip)},
		"truncated":        {rec.ID, tok[:len(tok)-4]},
		"another record's": {rec.ID, ou.Query().Get("t")},
		"empty":            {rec.ID, ""},
	}
	for name, c := range cases {
		if _, err := f.svc.OpenLink(ctx, c[0], c[1]); code(err) != CodeBadLink {
			t.Errorf("%s token: %v", name, err)
		}
	}
	if _, err := f.svc.OpenLink(ctx, "nope", tok); code(err) != CodeNotFound {
		t.Errorf("unknown id: %v", err)
	}
	// A link of another server (same store, other audience) does not open.
	foreign, _ := New(Config{Store: f.st, Codec: f.svc.cfg.Codec, Audience: "other", URL: "https://x.example/a", Now: f.clock.Now})
	fl, _ := foreign.Link(rec)
	fu, _ := url.Parse(fl)
	if _, err := f.svc.OpenLink(ctx, rec.ID, fu.Query().Get("t")); code(err) != CodeBadLink {
		t.Errorf("another audience's link: %v", err)
	}
	// A link outlives the deadline by a day, so a late visitor is told why.
	f.clock.Advance(24*time.Hour + 23*time.Hour)
	if _, err := f.svc.OpenLink(ctx, rec.ID, tok); err != nil {
		t.Errorf("late link: %v", err)
	}
}

func TestConcurrentDecisionsOneWins(t *testing.T) {
	f, ctx := newSvcFixture(t), context.Background()
	rec := f.request(t, action("w1", "alice", "2000 EUR"), fourEyesPolicy)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i, who := range []string{"bob", "carol", "dave"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: who, Approve: i != 1, Channel: ChannelAPI})
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
		} else if code(err) != CodeClosed {
			t.Errorf("loser: %v", err)
		}
	}
	got, _ := f.svc.Get(ctx, rec.ID)
	if won != 1 || len(got.Decisions) != 1 {
		t.Errorf("%d decisions won, %d recorded", won, len(got.Decisions))
	}
}

// tick fires the due timers, failing the test on an error.
func (f *svcFixture) tick(t *testing.T) {
	t.Helper()
	if _, err := f.svc.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A task waiting for an approval is woken at the first tick after the
// decision, even while the notices to people queued before fail and are
// retried.
func TestWakeIsNotHeldBackByFailingNotices(t *testing.T) {
	f, ctx := newSvcFixture(t), context.Background()
	var woken []string
	f.svc.SetResume(func(_ context.Context, waiter string) error { woken = append(woken, waiter); return nil })
	a := action("w1", "alice", "2000 EUR")
	a.Waiter = "task-1"
	rec := f.request(t, a, fourEyesPolicy)
	f.sent.fail = 3 // the request notice keeps failing
	if _, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "bob", Approve: true, Channel: ChannelAPI}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Tick(ctx); err == nil {
		t.Error("the failing notice was not reported")
	}
	if len(woken) != 1 || woken[0] != "task-1" {
		t.Fatalf("woken %v after the first tick, want [task-1]", woken)
	}
}
