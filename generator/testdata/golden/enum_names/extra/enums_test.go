// Hand-written tests of the generated code of this case, run next to it
// by TestGoldenCompile: enum fields of one name validate against their own
// values.
package tickets

import (
	"context"
	"strings"
	"testing"
)

func TestEnumsOfOneName(t *testing.T) {
	p := triageTicketProgram{}
	ctx := context.Background()
	for _, tc := range []struct {
		decode func() []string
		want   string
	}{
		{func() []string { _, pr, _ := p.decodeImpact(ctx, map[string]any{"priority": "high"}); return pr }, ""},
		{func() []string { _, pr, _ := p.decodeImpact(ctx, map[string]any{"priority": "p1"}); return pr }, "priority: must be one of low, medium, high"},
		{func() []string { _, pr, _ := p.decodeCustomer(ctx, map[string]any{"priority": "yesterday"}); return pr }, ""},
		{func() []string { _, pr, _ := p.decodeCustomer(ctx, map[string]any{"priority": "high"}); return pr }, "priority: must be one of whenever, soon, now, yesterday"},
		{func() []string {
			_, pr, _ := p.decodeCustomer(ctx, map[string]any{"priority": "now", "tags": []any{"bug", "billing"}})
			return pr
		}, ""},
		{func() []string {
			_, pr, _ := p.decodeCustomer(ctx, map[string]any{"priority": "now", "tags": []any{"p1"}})
			return pr
		}, "tags[]: must be one of bug, billing"},
		{func() []string {
			_, pr, _ := p.decodeInternal(ctx, map[string]any{"tags": []any{"p1", "p3"}})
			return pr
		}, ""},
		{func() []string { _, pr, _ := p.decodeInternal(ctx, map[string]any{"tags": []any{"bug"}}); return pr }, "tags[]: must be one of p1, p2, p3"},
	} {
		if got := strings.Join(tc.decode(), "; "); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	a, _, _ := p.decodeImpact(ctx, map[string]any{"priority": "high"})
	c, _, _ := p.decodeCustomer(ctx, map[string]any{"priority": "now"})
	var _ TriageTicketPriority = TriageTicketPriorityP1 // the continuation's
	if a.Priority != TriageTicketImpactPriorityHigh || c.Priority != TriageTicketCustomerPriorityNow {
		t.Errorf("%v %v", a.Priority, c.Priority)
	}
	// Each type round-trips through the continuation.
	f := &TriageTicketFlow{Continuation: TriageTicketContinuation{Priority: TriageTicketPriorityP3}, Impact: a, Customer: c}
	data := p.AppendContinuation(nil, f)
	var got TriageTicketFlow
	if err := p.LoadContinuation(&got, data); err != nil || got.Continuation.Priority != TriageTicketPriorityP3 || got.Impact.Priority != a.Priority || got.Customer.Priority != c.Priority {
		t.Errorf("round trip: %+v %+v %+v %v", got.Continuation, got.Impact, got.Customer, err)
	}
}
