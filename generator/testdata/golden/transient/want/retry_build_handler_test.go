// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package builds

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestRetryBuildHandler drives RetryBuildImpl through one retry_build workflow as a client would:
// typed arguments, each question answered with its typed answer, what it asks and how it ends
// checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another caller
// for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless you set
// it): set h.Principal before DriveRetryBuild to start one as another caller.
func TestRetryBuildHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewRetryBuildProgram(&RetryBuildImpl{}))
	d := DriveRetryBuild(t, h, RetryBuildArgs{Pipeline: "example"})
	d.WantAsks("job")
	d.Answer(RetryBuildJobAnswer{Name: "example"})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestRetryBuildHandlerMatrix runs the MRTR test matrix against RetryBuildImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestRetryBuildHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &RetryBuildImpl{}
	mrtrtest.RunMatrix(t, NewRetryBuildProgram(h), mrtrtest.Fixtures{
		Answers:      mrtrtest.Answers(RetryBuildJobAnswer{Name: "example"}),
		Args:         map[string]any{"pipeline": "example"},
		Invalid:      map[string]mcp.InputResponse{"job": mrtrtest.Accept(map[string]any{"name": 12345})},
		Other:        "bob",
		OtherArgs:    map[string]any{"pipeline": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
