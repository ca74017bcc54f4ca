// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package assist

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestSummarizeWorkspaceHandler drives SummarizeWorkspaceImpl through one summarize_workspace
// workflow as a client would: typed arguments, each question answered with its typed answer, what
// it asks and how it ends checked. Test its other branches the same way: d.Decline, d.Cancel,
// d.Refuse, d.As another caller for the next rounds, d.Replay a round. The workflow starts as
// h.Principal ("alice" unless you set it): set h.Principal before DriveSummarizeWorkspace to start
// one as another caller.
func TestSummarizeWorkspaceHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewSummarizeWorkspaceProgram(&SummarizeWorkspaceImpl{}))
	d := DriveSummarizeWorkspace(t, h, SummarizeWorkspaceArgs{})
	d.WantAsks("summary", "workspace")
	d.Answer(
		mrtrtest.Respond("summary", mrtrtest.Text("A sampled answer.")),
		mrtrtest.Respond("workspace", mrtrtest.RootsOf("file:///workspace/1")),
	)
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestSummarizeWorkspaceHandlerMatrix runs the MRTR test matrix against SummarizeWorkspaceImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestSummarizeWorkspaceHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &SummarizeWorkspaceImpl{}
	mrtrtest.RunMatrix(t, NewSummarizeWorkspaceProgram(h), mrtrtest.Fixtures{
		Answers: mrtrtest.Answers(
			mrtrtest.Respond("summary", mrtrtest.Text("A sampled answer.")),
			mrtrtest.Respond("workspace", mrtrtest.RootsOf("file:///workspace/1")),
		),
		Args: map[string]any{},
		Invalid: map[string]mcp.InputResponse{
			"summary":   mrtrtest.Text(strings.Repeat("x", 1001)),
			"workspace": mrtrtest.RootsOf("file:///workspace/1", "file:///workspace/2", "file:///workspace/3", "file:///workspace/4", "file:///workspace/5"),
		},
		Other:        "bob",
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
