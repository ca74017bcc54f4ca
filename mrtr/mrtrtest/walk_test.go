package mrtrtest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

// transferWalker walks transfer on its real handler, which ignores the
// outcomes a walk asks for (it answers "open" unless frozen); lie makes the
// effect count always 0.
func transferWalker(frozen, lie bool) *mrtrtest.Walker[*testprog.TransferFlow] {
	return mrtrtest.NewWalker(func(map[string][]uint8) (mrtr.Program[*testprog.TransferFlow], func() int) {
		h := &testprog.TransferImpl{}
		h.Frozen.Store(frozen)
		effects := h.SentCount
		if lie {
			effects = func() int { return 0 }
		}
		return testprog.NewTransferProgram(h), effects
	}, mrtrtest.Fixtures{
		Args: map[string]any{"account": "acc-000", "amount": int64(1)},
		Answers: map[string]mcp.InputResponse{
			"memo":    mrtrtest.Accept(map[string]any{"note": "example", "urgent": true}),
			"summary": mrtrtest.Text("A sampled answer."),
		},
	})
}

func TestWalkerPlaysWalks(t *testing.T) {
	w := transferWalker(false, false)
	w.Walk(t, "inspect>(open)askMemo>confirm>recheck>send>done")
	w.Walk(t, "inspect>(open)askMemo>confirm>(decline)declined")
	w.RejectAt(t, "inspect>(open)askMemo")
	w.RejectAt(t, "inspect>(open)askMemo>confirm")
	w.ConfirmEarly(t, "inspect>(open)askMemo>confirm")
	transferWalker(true, false).Walk(t, "inspect>(frozen)frozen")
}

// TestWalkerFailures runs, in a child process each, walks that must fail.
func TestWalkerFailures(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"path", `round 1 ran "inspect > frozen", want "inspect > askMemo"`},
		{"transition", "the state table has no transition inspect -(open)-> confirm"},
		{"effects", `walk "inspect>(open)askMemo>confirm>recheck>send>done" performed 0 side effects, want 1`},
		{"gate", "ends at askMemo, which is not a confirmation gate"},
		{"label", `"()askMemo" is not (label)state`},
		{"asks nothing", "ends at frozen, which asks nothing"},
		{"start", "does not start at the initial state inspect"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestWalkerFailureRun$", "-test.v", "-test.timeout", "2m")
			cmd.Env = append(os.Environ(), "MRTRTEST_WALK_FAILURE="+c.name)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the walk passed:\n%s", out)
			}
			if !strings.Contains(string(out), c.want) {
				t.Fatalf("the walk failed, but not saying %q:\n%s", c.want, out)
			}
		})
	}
}

func TestWalkerFailureRun(t *testing.T) {
	switch os.Getenv("MRTRTEST_WALK_FAILURE") {
	case "":
		t.Skip("run by TestWalkerFailures")
	case "path": // the handler answers frozen where the walk goes on
		transferWalker(true, false).Walk(t, "inspect>(open)askMemo>confirm>recheck>send>done")
	case "transition":
		transferWalker(false, false).Walk(t, "inspect>(open)confirm")
	case "effects":
		transferWalker(false, true).Walk(t, "inspect>(open)askMemo>confirm>recheck>send>done")
	case "gate":
		transferWalker(false, false).ConfirmEarly(t, "inspect>(open)askMemo")
	case "label":
		transferWalker(false, false).Walk(t, "inspect>()askMemo")
	case "asks nothing":
		transferWalker(true, false).RejectAt(t, "inspect>(frozen)frozen")
	case "start":
		transferWalker(false, false).Walk(t, "askMemo")
	}
}
