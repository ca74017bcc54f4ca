package approval

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A role the Approvers hook resolved to nobody admits nobody: the record
// must keep that through the store (its JSON), not turn it into "anyone".
func TestAttackEmptyRoleAdmitsNobodyAfterStore(t *testing.T) {
	f := newSvcFixture(t)
	a := action("w1", "alice", "5000 EUR to mallory")
	a.Approvers = nil
	a.Resolve = func(context.Context) ([]string, []string, error) { return []string{}, []string{}, nil }
	rec := f.request(t, a, fourEyesPolicy)
	_, err := f.svc.Decide(context.Background(), Decide{ID: rec.ID, Digest: rec.Digest, Approver: "mallory", Approve: true, Channel: ChannelPage})
	if code(err) != CodeNotApprover {
		got, _ := f.svc.Get(context.Background(), rec.ID)
		t.Fatalf("mallory approved a request whose role resolved to nobody: err %v, state %s", err, got.State)
	}
}

// A webhook URL often carries its secret in the path (Slack, Teams): a
// failed post must not put it in the error the service logs, records in
// its spans and returns from Tick.
func TestAttackWebhookErrorDoesNotLeakURL(t *testing.T) {
	const secret = "T0000-B0000-XXXXXXXXSECRET"
	w := WebhookNotifier{URL: "http://127.0.0.1:1/services/" + secret}
	rec := &Record{ID: "r1", Tool: "send_payout", State: Pending}
	err := w.Notify(context.Background(), Notice{Kind: NoticeRequest, Record: rec, Link: "https://x/approvals/r1?t=tok"})
	if err == nil {
		t.Fatal("a post to a closed port succeeded")
	}
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("the webhook's error names its secret URL: %v", err)
	}
}

type hangingNotifier struct{}

func (hangingNotifier) Notify(ctx context.Context, _ Notice) error {
	<-ctx.Done()
	return ctx.Err()
}

// A notifier that hangs (a webhook without a timeout, a stuck SMTP
// server) must not stop the instance's timers for good: a delivery is
// bounded by its lease (after which another instance delivers it again
// anyway).
func TestAttackHangingNotifierDoesNotStopTimers(t *testing.T) {
	f := newSvcFixture(t)
	f.svc.cfg.Notifier = hangingNotifier{}
	f.svc.cfg.Lease = 50 * time.Millisecond
	f.request(t, action("w1", "alice", "2500"), fourEyesPolicy)
	done := make(chan error, 1)
	go func() {
		_, err := f.svc.Tick(context.Background())
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Tick reports no error for a notice it could not deliver")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Tick hangs on a notifier that never answers")
	}
}

// A requester who wants a harmful action approved can hide it in the
// summary with bidirectional controls (U+202E reverses what follows:
// the approver reads another action than the one the digest binds). The
// page and the API show such controls visibly instead.
func TestAttackBidiControlsInSummaryShownVisibly(t *testing.T) {
	f := newFixture(t, false)
	rec, link := f.request("bidi", "Delete table \u202Esresu\u202C? (read-only check)", fourEyes(), "bob")
	bob := f.browser()
	wantStatus(t, bob.signIn(rec, link, "bob", "demo-bob"), http.StatusSeeOther)
	page := bob.get(link)
	view := wantView(t, f.api("bob").get(rec.ID, tokenOf(link)))
	for where, s := range map[string]string{"page": page.body, "API": view.Summary} {
		if strings.ContainsAny(s, "\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C") {
			t.Errorf("the %s shows the summary's bidirectional controls as they are", where)
		}
		if !strings.Contains(s, "202E]") { // html/template writes + as &#43;
			t.Errorf("the %s does not show the hidden control: %q", where, s)
		}
	}
}

// The engine's digest binds the requester, the tool and the gate; a
// caller of Service.Request whose digest forgets them must not get (and
// consume) another requester's approval.
func TestAttackDigestWithoutRequesterFailsClosed(t *testing.T) {
	f := newSvcFixture(t)
	ctx := context.Background()
	a := action("w1", "alice", "2500")
	rec := f.request(t, a, fourEyesPolicy)
	if _, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "bob", Approve: true, Channel: ChannelAPI}); err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]func(*Action){
		"requester": func(x *Action) { x.Requester = "mallory" },
		"tool":      func(x *Action) { x.Tool = "drop_database" },
		"gate":      func(x *Action) { x.Gate = "other" },
	} {
		b := a
		b.Workflow = "w-" + name
		m(&b)
		if got, err := f.svc.Request(ctx, b, fourEyesPolicy); err == nil {
			t.Errorf("another %s under the same digest got record %s (%s)", name, got.ID, got.State)
		}
	}
}
