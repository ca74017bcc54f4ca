package mrtrtest

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// Script is a scripted run of a program, round by round: what each round
// sends, which states it must run, and what it must ask for. Generated
// transition tests use scripts to take every edge of the state table.
type Script struct {
	Args   any
	Rounds []ScriptRound
	// Want is how the workflow must end.
	Want mrtr.Outcome
}

// PathSeparator separates the states of ScriptRound.Path.
const PathSeparator = " > "

// ScriptRound is one request of a script.
type ScriptRound struct {
	// Send are the answers of this round (nil for the first).
	Send mcp.InputResponseMap
	// Path are the states the round must run, in order, separated by " > "
	// ("askReason > confirmRefund > refund > refunded").
	Path string
	// Asks are the request keys the round must end asking for; nil when
	// the round ends the workflow.
	Asks []string
	// Explains are, per request key, text the question must show: why it
	// is asked again (a check's mrtr.AskAgain message).
	Explains map[string]string
	// Approval, for a round that resumes at an approval gate, is what
	// happens to the approval the workflow waits for before the round is
	// sent (Harness.SettleApproval): "approve", "decline" or "expire".
	Approval string
}

// RunScript runs s on h and fails the test at the first round that does
// not go as scripted.
func RunScript[F any](t *testing.T, h *Harness[F], s Script) {
	t.Helper()
	runScript(t, h, s)
}

// runScript is RunScript; it returns the requestState of the last round
// when that round asks.
func runScript[F any](t *testing.T, h *Harness[F], s Script) (state string) {
	t.Helper()
	d := h.Program.Descriptor()
	var asked mcp.InputRequestMap // the questions of the previous round
	for i, r := range s.Rounds {
		if r.Approval != "" {
			if err := h.SettleApproval(context.Background(), r.Approval); err != nil {
				t.Fatalf("round %d: %v", i+1, err)
			}
		}
		reply, err := h.Call(context.Background(), s.Args, state, typeGates(d, asked, r.Send))
		if err != nil {
			t.Fatalf("round %d: %v", i+1, err)
		}
		if got := strings.Join(reply.Path, PathSeparator); got != r.Path {
			t.Fatalf("round %d ran %q, want %q", i+1, got, r.Path)
		}
		if r.Asks == nil {
			if reply.NeedsInput() {
				t.Fatalf("round %d asks for %v, want the end of the workflow", i+1, keys(reply.InputRequests))
			}
			if reply.Final.Outcome != s.Want {
				t.Fatalf("round %d ended %s (%q), want %s", i+1, reply.Final.Outcome, reply.Final.Text, s.Want)
			}
			if i != len(s.Rounds)-1 {
				t.Fatalf("round %d ended the workflow; the script has %d rounds", i+1, len(s.Rounds))
			}
			return ""
		}
		if !reply.NeedsInput() {
			t.Fatalf("round %d ended %s (%q), want it to ask for %v", i+1, reply.Final.Outcome, reply.Final.Text, r.Asks)
		}
		want := slices.Clone(r.Asks)
		slices.Sort(want)
		if got := keys(reply.InputRequests); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d asks for %v, want %v", i+1, got, want)
		}
		for key, why := range r.Explains {
			if text := questionText(reply.InputRequests[key]); !strings.Contains(text, why) {
				t.Fatalf("round %d asks for %q with %q, which does not say %q", i+1, key, text, why)
			}
		}
		state = reply.RequestState
		asked = reply.InputRequests
	}
	return state
}

// questionText is what a request says to the user or the client's model:
// a form's message, a sampling prompt ("" for roots).
func questionText(q mcp.InputRequest) string {
	switch p := q.(type) {
	case *mcp.ElicitParams:
		return p.Message
	//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; a question asked again says why in its prompt
	case *mcp.CreateMessageParams:
		var b strings.Builder
		for _, m := range p.Messages {
			if t, ok := m.Content.(*mcp.TextContent); ok {
				b.WriteString(t.Text)
			}
		}
		return b.String()
	}
	return ""
}
