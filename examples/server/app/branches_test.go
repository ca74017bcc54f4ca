package app

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
)

// round sends one round of a tool call and fails the test on a protocol
// error.
func round(t *testing.T, cs *mcp.ClientSession, name string, args any, state string, answers mcp.InputResponseMap) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args, RequestState: state, InputResponses: answers})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// asked returns the message of the form res asks with key, failing the
// test when it does not ask for it.
func asked(t *testing.T, res *mcp.CallToolResult, key string) string {
	t.Helper()
	ep, ok := res.InputRequests[key].(*mcp.ElicitParams)
	if !res.NeedsInput() || !ok {
		t.Fatalf("want a question %q, got %+v (%q)", key, res, text(t, res))
	}
	return ep.Message
}

// answer is the round's answer to the question key: a form accepted with
// content.
func answer(key string, content map[string]any) mcp.InputResponseMap {
	return mcp.InputResponseMap{key: accept(content)}
}

// TestServeRefundAboveTheThreshold: the served refund_order routes an
// amount above 500.00 to a manager's approval (a value branch), asks again
// for an approver who is no manager, and refunds once.
func TestServeRefundAboveTheThreshold(t *testing.T) {
	s := start(t, "memory:", testRing(t), "test-1")
	cs := connect(t, s.URL, nil, "")
	args := map[string]any{"orderId": "ord_1002"}
	r := round(t, cs, "refund_order", args, "", nil)
	if q := asked(t, r, "refund"); !strings.Contains(q, "(2400.00 EUR left)") {
		t.Fatalf("round 1 asks %q", q)
	}
	r = round(t, cs, "refund_order", args, r.RequestState, answer("refund", map[string]any{"amount": 750, "reason": "damaged"}))
	if q := asked(t, r, "approval"); !strings.Contains(q, "A refund of 750.00 EUR on order ord_1002 needs a manager's approval") {
		t.Fatalf("round 2 asks %q", q)
	}
	r = round(t, cs, "refund_order", args, r.RequestState, answer("approval", map[string]any{"manager": "tom"}))
	if q := asked(t, r, "approval"); !strings.HasSuffix(q, "\n\ntom is an agent, not a manager; name a manager (1 attempt left)") {
		t.Fatalf("round 3 asks %q, want the approver asked again with why", q)
	}
	r = round(t, cs, "refund_order", args, r.RequestState, answer("approval", map[string]any{"manager": "maria"}))
	asked(t, r, "confirm")
	final := answer("confirm", map[string]any{"confirm": true})
	r = round(t, cs, "refund_order", args, r.RequestState, final)
	if r.NeedsInput() || r.IsError || !strings.HasPrefix(text(t, r), "Refunded 750.00 EUR of order ord_1002 (arrived damaged); refund re_") {
		t.Fatalf("final round: %+v %q", r, text(t, r))
	}
	if n, err := domain.Effects(context.Background(), s.Data, "refund_order", "ord_1002"); err != nil || n != 1 {
		t.Fatalf("refunded %d times (%v)", n, err)
	}
}

// TestServeRefundSaysTheAmountAsConfirmed: the amount the user confirmed
// ("Refund 50.50 EUR") is the amount the result says was refunded, written
// the same way, and so is the reason.
func TestServeRefundSaysTheAmountAsConfirmed(t *testing.T) {
	s := start(t, "memory:", testRing(t), "test-1")
	cs := connect(t, s.URL, nil, "")
	args := map[string]any{"orderId": "ord_1002"}
	r := round(t, cs, "refund_order", args, "", nil)
	asked(t, r, "refund")
	r = round(t, cs, "refund_order", args, r.RequestState, answer("refund", map[string]any{"amount": 50.5, "reason": "late"}))
	if q := asked(t, r, "confirm"); !strings.HasPrefix(q, "Refund 50.50 EUR of order ord_1002 (arrived late)") {
		t.Fatalf("the confirmation asks %q", q)
	}
	r = round(t, cs, "refund_order", args, r.RequestState, answer("confirm", map[string]any{"confirm": true}))
	if r.NeedsInput() || r.IsError || !strings.HasPrefix(text(t, r), "Refunded 50.50 EUR of order ord_1002 (arrived late); refund re_") {
		t.Fatalf("final round: %+v %q", r, text(t, r))
	}
}

// TestServeRolloutAsksAgainForTheTicket: the served roll_out_release
// asks again for a change ticket that does not cover the release, with the
// reason, and takes the answer to the question asked again.
func TestServeRolloutAsksAgainForTheTicket(t *testing.T) {
	s := start(t, "memory:", testRing(t), "test-1")
	cs := connect(t, s.URL, nil, "")
	args := map[string]any{"component": "payments-api", "version": "v1.5.0"}
	r := round(t, cs, "roll_out_release", args, "", nil)
	asked(t, r, "ticket")
	r = round(t, cs, "roll_out_release", args, r.RequestState, answer("ticket", map[string]any{"id": "CHG-1002"}))
	if q := asked(t, r, "ticket"); !strings.HasSuffix(q, "\n\nticket CHG-1002 is pending, not approved; give a ticket that approves payments-api v1.5.0 (2 attempts left)") {
		t.Fatalf("round 2 asks %q, want the ticket asked again with why", q)
	}
	r = round(t, cs, "roll_out_release", args, r.RequestState, answer("ticket", map[string]any{"id": "CHG-1001"}))
	asked(t, r, "rollout") // payments-api is high-risk: the branch on its risk asks the rollout
	r = round(t, cs, "roll_out_release", args, r.RequestState, answer("rollout", map[string]any{"strategy": "rolling"}))
	if q := asked(t, r, "confirmRolling"); !strings.Contains(q, "under CHG-1001 as a rolling update") {
		t.Fatalf("round 4 asks %q", q)
	}
	r = round(t, cs, "roll_out_release", args, r.RequestState, answer("confirmRolling", map[string]any{"confirm": true}))
	if r.NeedsInput() || r.IsError || !strings.HasPrefix(text(t, r), "Rolling out payments-api v1.5.0 under CHG-1001 (rollout ro_") {
		t.Fatalf("final round: %+v %q", r, text(t, r))
	}
}
