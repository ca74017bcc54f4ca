package calendars

import (
	"context"
	"net/url"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domaintest"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

// userOnPage is a domain store on which every user completes the calendar
// page as soon as the tool looks for their grant: the user who opened the
// link in the matrix's walks grants access for the workflow in it.
type userOnPage struct {
	*domaintest.Store
	provider string
}

func (s userOnPage) Get(ctx context.Context, key string) (string, bool, error) {
	if rest, ok := strings.CutPrefix(key, "calgrant:"); ok {
		if user, workflow, ok := strings.Cut(rest, ":"); ok {
			if _, err := domain.GrantCalendar(ctx, s.Store, user, workflow, s.provider, time.Now()); err != nil {
				return "", false, err
			}
		}
	}
	return s.Store.Get(ctx, key)
}

// TestConnectCalendarRealMatrix runs the MRTR matrix against the real
// handler, with users who complete the page whenever they are sent to it.
func TestConnectCalendarRealMatrix(t *testing.T) {
	data := domaintest.New(t)
	mrtrtest.RunMatrix(t, NewConnectCalendarProgram(&ConnectCalendarImpl{Data: userOnPage{data, "work"}}), mrtrtest.Fixtures{
		Args:      ConnectCalendarArgs{Provider: ConnectCalendarProviderWork},
		Answers:   mrtrtest.Answers(mrtrtest.Respond("grant", mrtrtest.URLAccepted())),
		Principal: "alice",
		Other:     "bob",
		OtherArgs: ConnectCalendarArgs{Provider: ConnectCalendarProviderPersonal},
		Effects:   data.Effects(calendarTool, "alice:work"),
		Break:     data.BreakWrites,
		NotApplicable: map[string]string{
			"invalid response": "a URL step's answer carries nothing to validate: any accept is the same answer",
			"unauthorized":     "only anonymous callers are refused, which Fixtures cannot name; TestConnectCalendarGivesUp covers them",
		},
	}, data.Harness(t))
}

// workflowOf reads the workflow id from the URL the last round sent.
func workflowOf(t *testing.T, d *mrtrtest.Driver[*ConnectCalendarFlow]) (string, *url.URL) {
	t.Helper()
	p, ok := d.Reply().InputRequests["grant"].(*mcp.ElicitParams)
	if !ok || p.Mode != "url" {
		t.Fatalf("grant is %#v, want a URL-mode elicitation", d.Reply().InputRequests["grant"])
	}
	u, err := url.Parse(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	return path.Base(u.Path), u
}

// Accepting the URL is not the grant: without one the page is offered again,
// a grant by another user for the same workflow does not count, and the
// caller's own grant connects the calendar once.
func TestConnectCalendarVerifiesTheGrant(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewConnectCalendarProgram(&ConnectCalendarImpl{Data: data}))
	d := DriveConnectCalendar(t, h, ConnectCalendarArgs{Provider: ConnectCalendarProviderWork}).
		WantAsks("grant").
		WantQuestion("grant", "Open the calendar page")
	wf, u := workflowOf(t, d)
	if got, want := u.String(), mrtrtest.PublicURL+"/oob/calendar/"+wf+"?provider=work"; got != want {
		t.Fatalf("URL %s, want %s", got, want)
	}
	d.Answer(mrtrtest.Respond("grant", mrtrtest.URLAccepted())).
		WantQuestion("grant", "has no grant from you yet")
	// bob opens alice's link and grants access: his grant, not hers.
	if _, err := domain.GrantCalendar(ctx, data, "bob", wf, "work", time.Now()); err != nil {
		t.Fatal(err)
	}
	d.Answer(mrtrtest.Respond("grant", mrtrtest.URLAccepted())).
		WantQuestion("grant", "has no grant from you yet")
	if _, err := domain.GrantCalendar(ctx, data, "alice", wf, "work", time.Now()); err != nil {
		t.Fatal(err)
	}
	d.Answer(mrtrtest.Respond("grant", mrtrtest.URLAccepted())).
		WantEnd(mrtr.OutcomeSuccess, "Your work calendar is connected (grant grant-")
	if n := data.Effects(calendarTool, "alice:work")(); n != 1 {
		t.Fatalf("sync enabled %d times, want 1", n)
	}
	if _, ok, _ := domain.Load[domain.CalendarLink](ctx, data, domain.CalendarLinkKey("bob", "work")); ok {
		t.Fatal("bob's calendar got connected")
	}
	// Connected now: a second workflow is refused up front.
	DriveConnectCalendar(t, h, ConnectCalendarArgs{Provider: ConnectCalendarProviderWork}).
		WantEnd(mrtr.OutcomeRejected, "already connected")
}

// Three accepts without a grant use up the attempts; declining the page
// ends the workflow; an anonymous caller is refused.
func TestConnectCalendarGivesUp(t *testing.T) {
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewConnectCalendarProgram(&ConnectCalendarImpl{Data: data}))
	accept := mrtrtest.Respond("grant", mrtrtest.URLAccepted())
	DriveConnectCalendar(t, h, ConnectCalendarArgs{Provider: ConnectCalendarProviderWork}).
		Answer(accept).Answer(accept).Answer(accept).
		WantEnd(mrtr.OutcomeCancelled, "No calendar was connected.")
	DriveConnectCalendar(t, h, ConnectCalendarArgs{Provider: ConnectCalendarProviderWork}).
		Decline("grant").
		WantEnd(mrtr.OutcomeCancelled, "No calendar was connected.")
	h.Principal = ""
	DriveConnectCalendar(t, h, ConnectCalendarArgs{Provider: ConnectCalendarProviderWork}).
		WantEnd(mrtr.OutcomeUnauthorized, "sign in first")
}

// A client that does forms only (a bare elicitation: {}) gets -32021 on
// round 1, before any state runs; one that declares url: {} is asked.
func TestConnectCalendarNeedsURLMode(t *testing.T) {
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewConnectCalendarProgram(&ConnectCalendarImpl{Data: data}))
	h.Capabilities = mrtrtest.Capabilities("elicitation")
	d := DriveConnectCalendar(t, h, ConnectCalendarArgs{Provider: ConnectCalendarProviderWork})
	if code := mrtrtest.ErrorCode(d.Err()); code != -32021 {
		t.Fatalf("form-only client: %v (code %d), want -32021", d.Err(), code)
	}
	h.Capabilities = mrtrtest.Capabilities("elicitation.url")
	DriveConnectCalendar(t, h, ConnectCalendarArgs{Provider: ConnectCalendarProviderWork}).WantAsks("grant")
}
