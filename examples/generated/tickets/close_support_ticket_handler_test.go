package tickets

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domaintest"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

var resolved = mrtrtest.Accept(map[string]any{"closeReason": "resolved", "comment": "Fixed by the 2.3 release."})

// TestCloseSupportTicketRealMatrix runs the MRTR matrix against the real
// handler on the demo ticket 4242, which only its assignees alice and bob
// may close (mallory is refused on every round).
func TestCloseSupportTicketRealMatrix(t *testing.T) {
	data := domaintest.New(t)
	h := &CloseSupportTicketImpl{Data: data}
	mrtrtest.RunMatrix(t, NewCloseSupportTicketProgram(h), mrtrtest.Fixtures{
		Args:         map[string]any{"ticketId": "4242"},
		Answers:      map[string]mcp.InputResponse{"reason": resolved},
		Invalid:      map[string]mcp.InputResponse{"reason": mrtrtest.Accept(map[string]any{"closeReason": "resolved", "comment": "new password: hunter2"})},
		Principal:    "alice",
		Other:        "bob",
		Unauthorized: "mallory",
		OtherArgs:    map[string]any{"ticketId": "12346"},
		Effects:      data.Effects(closeTool, "4242"),
		Break:        data.BreakWrites,
	}, data.Harness(t))
}

// TestCloseSupportTicketAuthorizedEveryRound: an assignee removed while
// answering cannot finish.
func TestCloseSupportTicketAuthorizedEveryRound(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewCloseSupportTicketProgram(&CloseSupportTicketImpl{Data: data}))
	args := map[string]any{"ticketId": "4242"}
	first, err := h.Call(ctx, args, "", nil)
	if err != nil || !first.NeedsInput() {
		t.Fatalf("alice, round 1: %+v, %v", first, err)
	}
	err = domain.Update(ctx, data, domain.TicketKey("4242"), "", func(tk *domain.Ticket) error {
		tk.Assignees = []string{"bob"}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := h.Call(ctx, args, first.RequestState, mcp.InputResponseMap{"reason": resolved})
	if err != nil || r.NeedsInput() || r.Final.Outcome != mrtr.OutcomeUnauthorized {
		t.Fatalf("alice, round 2 after being unassigned: %+v, %v", r, err)
	}
	if n := data.Effects(closeTool, "4242")(); n != 0 {
		t.Fatalf("closed %d times", n)
	}
}

func TestCloseSupportTicketClosesOnce(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewCloseSupportTicketProgram(&CloseSupportTicketImpl{Data: data}))
	h.Principal = "" // the demo tickets are open to anonymous callers

	// Two workflows for the same ticket both pass the lookup...
	first, err := h.Call(ctx, map[string]any{"ticketId": "12345"}, "", nil)
	if err != nil || !first.NeedsInput() {
		t.Fatalf("round 1: %+v, %v", first, err)
	}
	if q := first.InputRequests["reason"].(*mcp.ElicitParams).Message; !strings.Contains(q, "Printer on floor 3 is jammed") {
		t.Fatalf("the question does not show the ticket's subject: %q", q)
	}
	second, err := h.Call(ctx, map[string]any{"ticketId": "12345"}, "", nil)
	if err != nil || !second.NeedsInput() {
		t.Fatalf("round 1 of the second workflow: %+v, %v", second, err)
	}
	// ...and finish at the same time: the ticket is closed once.
	var wg sync.WaitGroup
	replies := make([]*mrtr.Reply, 2)
	for i, state := range []string{first.RequestState, second.RequestState} {
		wg.Go(func() {
			r, err := h.Call(ctx, map[string]any{"ticketId": "12345"}, state, mcp.InputResponseMap{"reason": resolved})
			if err != nil {
				t.Error(err)
			}
			replies[i] = r
		})
	}
	wg.Wait()
	var ok, refused int
	for _, r := range replies {
		switch {
		case r == nil:
		case r.Final.Outcome == mrtr.OutcomeSuccess:
			ok++
		case r.Final.Outcome == mrtr.OutcomeRejected:
			refused++
		}
	}
	if ok != 1 || refused != 1 {
		t.Fatalf("replies %+v %+v: want one success and one refusal", replies[0].Final, replies[1].Final)
	}
	if n := data.Effects(closeTool, "12345")(); n != 1 {
		t.Fatalf("ticket closed %d times", n)
	}
	tk, _, _ := domain.Load[domain.Ticket](ctx, data, domain.TicketKey("12345"))
	if tk.Status != "closed" || tk.CloseReason != "resolved" || tk.Comment != "Fixed by the 2.3 release." || tk.ClosedAt.IsZero() {
		t.Fatalf("ticket after closing: %+v", tk)
	}

	// A third workflow is refused at the lookup.
	r, err := h.Call(ctx, map[string]any{"ticketId": "12345"}, "", nil)
	if err != nil || r.NeedsInput() || r.Final.Outcome != mrtr.OutcomeRejected || !strings.Contains(r.Final.Text, "already closed") {
		t.Fatalf("closing a closed ticket: %+v, %v", r, err)
	}
}

func TestCloseSupportTicketRefusals(t *testing.T) {
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewCloseSupportTicketProgram(&CloseSupportTicketImpl{Data: data}))
	for _, c := range []struct {
		principal, ticket string
		want              mrtr.Outcome
		text              string
	}{
		{"alice", "12347", mrtr.OutcomeRejected, "ticket 12347 is already closed"},
		{"alice", "999", mrtr.OutcomeRejected, "ticket 999 does not exist"},
		{"", "4242", mrtr.OutcomeUnauthorized, "only the ticket's assignees"},
		{"mallory", "4242", mrtr.OutcomeUnauthorized, "only the ticket's assignees"},
	} {
		h.Principal = c.principal
		r, err := h.Call(context.Background(), map[string]any{"ticketId": c.ticket}, "", nil)
		if err != nil || r.NeedsInput() || r.Final.Outcome != c.want || !strings.Contains(r.Final.Text, c.text) {
			t.Errorf("%q closing %s: %+v, %v; want %s with %q", c.principal, c.ticket, r.Final, err, c.want, c.text)
		}
	}
}

func TestNoSecrets(t *testing.T) {
	h := &CloseSupportTicketImpl{}
	for _, bad := range []string{
		"the password: hunter2", "API_KEY=abc123", "use token = xyz",
		"sk_live_4eC39HqLyjWDarjtT1zdp7dc", "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
		"AKIAIOSFODNN7EXAMPLE", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig",
		"-----BEGIN RSA PRIVATE KEY-----",
	} {
		// A refusal is for the user to correct: mrtr.Invalid, not a failure.
		if _, ok := errors.AsType[*mrtrimpl.InvalidValue](h.NoSecrets(context.Background(), bad)); !ok {
			t.Errorf("NoSecrets did not refuse %q with mrtr.Invalid", bad)
		}
	}
	for _, good := range []string{"", "Fixed by the 2.3 release.", "Reset your password from the login page.", "Token ring network replaced."} {
		if err := h.NoSecrets(context.Background(), good); err != nil {
			t.Errorf("NoSecrets refused %q: %v", good, err)
		}
	}
}
