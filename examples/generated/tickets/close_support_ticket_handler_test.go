package tickets

import (
	"context"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domaintest"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

// resolved is the answer the tests close tickets with.
var resolved = CloseSupportTicketReasonAnswer{CloseReason: CloseSupportTicketCloseReasonResolved, Comment: new("Fixed by the 2.3 release.")}

func ticket(id string) CloseSupportTicketArgs { return CloseSupportTicketArgs{TicketID: id} }

// TestCloseSupportTicketRealMatrix runs the MRTR matrix against the real
// handler on the demo ticket 4242, which only its assignees alice and bob
// may close (mallory is refused on every round).
func TestCloseSupportTicketRealMatrix(t *testing.T) {
	data := domaintest.New(t)
	h := &CloseSupportTicketImpl{Data: data}
	mrtrtest.RunMatrix(t, NewCloseSupportTicketProgram(h), mrtrtest.Fixtures{
		Args:    ticket("4242"),
		Answers: mrtrtest.Answers(resolved),
		Invalid: mrtrtest.Answers(CloseSupportTicketReasonAnswer{
			CloseReason: CloseSupportTicketCloseReasonResolved, Comment: new("new password: hunter2"),
		}),
		Principal:    "alice",
		Other:        "bob",
		Unauthorized: "mallory",
		OtherArgs:    ticket("12346"),
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
	d := DriveCloseSupportTicket(t, h, ticket("4242")).WantAsks("reason")
	err := domain.Update(ctx, data, domain.TicketKey("4242"), "", func(tk *domain.Ticket) error {
		tk.Assignees = []string{"bob"}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	d.Answer(resolved).WantEnd(mrtr.OutcomeUnauthorized, "only the ticket's assignees")
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
	first := DriveCloseSupportTicket(t, h, ticket("12345")).WantQuestion("reason", "Printer on floor 3 is jammed")
	second := DriveCloseSupportTicket(t, h, ticket("12345")).WantAsks("reason")
	// ...and finish at the same time: the ticket is closed once. (The
	// Driver reports from the test's goroutine; racing rounds are sent
	// with the harness itself.)
	var wg sync.WaitGroup
	replies := make([]*mrtr.Reply, 2)
	for i, d := range []*mrtrtest.Driver[*CloseSupportTicketFlow]{first, second} {
		wg.Go(func() {
			r, err := h.Call(ctx, ticket("12345"), d.Reply().RequestState, mcp.InputResponseMap(mrtrtest.Answers(resolved)))
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
		t.Fatalf("outcomes %s and %s: want one success and one refusal", replies[0].Final.Outcome, replies[1].Final.Outcome)
	}
	if n := data.Effects(closeTool, "12345")(); n != 1 {
		t.Fatalf("ticket closed %d times", n)
	}
	tk, _, _ := domain.Load[domain.Ticket](ctx, data, domain.TicketKey("12345"))
	if tk.Status != "closed" || tk.CloseReason != "resolved" || tk.Comment != "Fixed by the 2.3 release." || tk.ClosedAt.IsZero() {
		t.Fatalf("ticket after closing: status %q, reason %q, comment %q, closed at %v", tk.Status, tk.CloseReason, tk.Comment, tk.ClosedAt)
	}

	// A third workflow is refused at the lookup.
	DriveCloseSupportTicket(t, h, ticket("12345")).WantEnd(mrtr.OutcomeRejected, "already closed")
}

// TestCloseSupportTicketRetried: the final round retried replays its
// result; the ticket is closed once.
func TestCloseSupportTicketRetried(t *testing.T) {
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewCloseSupportTicketProgram(&CloseSupportTicketImpl{Data: data}))
	DriveCloseSupportTicket(t, h, ticket("4242")).
		Answer(resolved).WantEnd(mrtr.OutcomeSuccess, "Closed ticket 4242 (resolved).").
		Replay().WantEnd(mrtr.OutcomeSuccess, "Closed ticket 4242 (resolved).")
	if n := data.Effects(closeTool, "4242")(); n != 1 {
		t.Fatalf("closed %d times", n)
	}
}

// TestCloseSupportTicketLeft: a user who declines or cancels the question
// closes nothing.
func TestCloseSupportTicketLeft(t *testing.T) {
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewCloseSupportTicketProgram(&CloseSupportTicketImpl{Data: data}))
	DriveCloseSupportTicket(t, h, ticket("4242")).Decline("reason").WantEnd(mrtr.OutcomeCancelled, `declined "reason"`)
	DriveCloseSupportTicket(t, h, ticket("4242")).Cancel("reason").WantEnd(mrtr.OutcomeCancelled, `cancelled "reason"`)
	// An answer validation refuses is asked again, saying what to correct.
	DriveCloseSupportTicket(t, h, ticket("4242")).
		Answer(CloseSupportTicketReasonAnswer{CloseReason: CloseSupportTicketCloseReasonDuplicate, Comment: new("API_KEY=abc123")}).
		WantQuestion("reason", "Please correct: comment:")
	if n := data.Effects(closeTool, "4242")(); n != 0 {
		t.Fatalf("closed %d times", n)
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
		t.Run(c.principal+" closing "+c.ticket, func(t *testing.T) {
			h.Principal = c.principal
			DriveCloseSupportTicket(t, h, ticket(c.ticket)).WantEnd(c.want, c.text)
		})
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
		if !mrtr.IsInvalid(h.NoSecrets(context.Background(), bad)) {
			t.Errorf("NoSecrets did not refuse %q with mrtr.Invalid", bad)
		}
	}
	for _, good := range []string{"", "Fixed by the 2.3 release.", "Reset your password from the login page.", "Token ring network replaced."} {
		if err := h.NoSecrets(context.Background(), good); err != nil {
			t.Errorf("NoSecrets refused %q: %v", good, err)
		}
	}
}
