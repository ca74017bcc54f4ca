// Hand-written tests of the generated code of this case, run next to it
// by TestGoldenCompile: each state that asks question "closing" sends its
// own form (the manager's adds ticket, the customer's offers fewer reasons
// and a shorter note) and validates the answer by that form, while both
// answer with the one type CloseTicketClosingAnswer.
package tickets

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// sentSchema is the requestedSchema the program sends in state s.
func sentSchema(t *testing.T, s CloseTicketState) map[string]any {
	t.Helper()
	p := closeTicketProgram{}
	f := &CloseTicketFlow{Call: &mrtr.Call{WorkflowID: "wf1"}, Args: CloseTicketArgs{TicketID: "T-1"}}
	qs := p.Questions(f, uint16(s))
	if len(qs) != 1 || qs[0].Key != "closing" {
		t.Fatalf("state %v asks %v, want the one question closing", s, qs)
	}
	params, ok := qs[0].Params.(*mcp.ElicitParams)
	if !ok {
		t.Fatalf("state %v sends %T, want a form", s, qs[0].Params)
	}
	raw, err := json.Marshal(params.RequestedSchema)
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	return schema
}

func TestEachStateSendsItsOwnForm(t *testing.T) {
	for _, tc := range []struct {
		state    CloseTicketState
		fields   []string
		required []any
		reasons  []any
		noteMax  float64
	}{
		{CloseTicketStateAskManager, []string{"closeReason", "note", "ticket"}, []any{"closeReason", "ticket"}, []any{"resolved", "duplicate", "wontfix"}, 500},
		{CloseTicketStateAskCustomer, []string{"closeReason", "note"}, []any{"closeReason"}, []any{"resolved", "duplicate"}, 100},
	} {
		schema := sentSchema(t, tc.state)
		props := schema["properties"].(map[string]any)
		var names []string
		for name := range props {
			names = append(names, name)
		}
		slices.Sort(names)
		if !slices.Equal(names, tc.fields) {
			t.Errorf("state %v sends fields %v, want %v", tc.state, names, tc.fields)
		}
		if got := schema["required"].([]any); !slices.Equal(got, tc.required) {
			t.Errorf("state %v requires %v, want %v", tc.state, got, tc.required)
		}
		if got := props["closeReason"].(map[string]any)["enum"].([]any); !slices.Equal(got, tc.reasons) {
			t.Errorf("state %v offers reasons %v, want %v", tc.state, got, tc.reasons)
		}
		if got := props["note"].(map[string]any)["maxLength"]; got != tc.noteMax {
			t.Errorf("state %v bounds the note at %v, want %v", tc.state, got, tc.noteMax)
		}
	}
}

func TestEachStateValidatesByItsOwnForm(t *testing.T) {
	p := closeTicketProgram{}
	ctx := context.Background()
	long := strings.Repeat("x", 101)
	for _, tc := range []struct {
		name    string
		decode  func(context.Context, map[string]any) (*CloseTicketClosingAnswer, []string)
		content map[string]any
		refused string // "" when the answer is accepted
	}{
		{"manager: wontfix with a ticket", p.manager, map[string]any{"closeReason": "wontfix", "ticket": "CHG-12"}, ""},
		{"manager: without the ticket it adds", p.manager, map[string]any{"closeReason": "resolved"}, "ticket"},
		{"manager: a ticket not matching its pattern", p.manager, map[string]any{"closeReason": "resolved", "ticket": "INC-1"}, "ticket"},
		{"manager: a 101-character note (the question allows 500)", p.manager, map[string]any{"closeReason": "resolved", "ticket": "CHG-1", "note": long}, ""},
		{"customer: resolved", p.customer, map[string]any{"closeReason": "resolved"}, ""},
		{"customer: wontfix, allowed by the question, not here", p.customer, map[string]any{"closeReason": "wontfix"}, "closeReason"},
		{"customer: a 101-character note", p.customer, map[string]any{"closeReason": "duplicate", "note": long}, "note"},
	} {
		a, problems := tc.decode(ctx, tc.content)
		switch {
		case tc.refused == "" && len(problems) > 0:
			t.Errorf("%s: refused: %v", tc.name, problems)
		case tc.refused != "" && !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.refused) }):
			t.Errorf("%s: problems %v, want one with %s", tc.name, problems, tc.refused)
		}
		if tc.refused == "" && tc.name == "manager: wontfix with a ticket" && (a.Ticket == nil || *a.Ticket != "CHG-12" || a.CloseReason != CloseTicketCloseReasonWontfix) {
			t.Errorf("%s: answer %+v", tc.name, a)
		}
		if tc.refused == "" && strings.HasPrefix(tc.name, "customer") && a.Ticket != nil {
			t.Errorf("%s: the customer's form has no ticket, yet the answer has %q", tc.name, *a.Ticket)
		}
	}
}

// manager and customer decode with each state's decoder.
func (p closeTicketProgram) manager(ctx context.Context, c map[string]any) (*CloseTicketClosingAnswer, []string) {
	a, problems, err := p.decodeClosingInAskManager(ctx, c)
	if err != nil {
		panic(err)
	}
	return a, problems
}

func (p closeTicketProgram) customer(ctx context.Context, c map[string]any) (*CloseTicketClosingAnswer, []string) {
	a, problems, err := p.decodeClosingInAskCustomer(ctx, c)
	if err != nil {
		panic(err)
	}
	return a, problems
}
