// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package releases

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestApproveReleaseHandler drives ApproveReleaseImpl through one approve_release workflow as a
// client would: typed arguments, each question answered with its typed answer, what it asks and how
// it ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As
// another caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice"
// unless you set it): set h.Principal before DriveApproveRelease to start one as another caller.
func TestApproveReleaseHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewApproveReleaseProgram(&ApproveReleaseImpl{}))
	d := DriveApproveRelease(t, h, ApproveReleaseArgs{Release: "example"})
	d.WantAsks("ticket")
	d.Answer(ApproveReleaseTicketAnswer{ID: "CHG-0"})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestApproveReleaseHandlerMatrix runs the MRTR test matrix against ApproveReleaseImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestApproveReleaseHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &ApproveReleaseImpl{}
	mrtrtest.RunMatrix(t, NewApproveReleaseProgram(h), mrtrtest.Fixtures{
		Answers:      mrtrtest.Answers(ApproveReleaseTicketAnswer{ID: "CHG-0"}),
		Args:         map[string]any{"release": "example"},
		Invalid:      map[string]mcp.InputResponse{"ticket": mrtrtest.Accept(map[string]any{"id": 12345})},
		Other:        "bob",
		OtherArgs:    map[string]any{"release": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
