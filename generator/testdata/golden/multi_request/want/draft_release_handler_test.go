// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package release

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestDraftReleaseHandler drives DraftReleaseImpl through one draft_release workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveDraftRelease to start one as another caller.
func TestDraftReleaseHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewDraftReleaseProgram(&DraftReleaseImpl{}))
	d := DriveDraftRelease(t, h, DraftReleaseArgs{Version: "v0.0.0"})
	d.WantAsks("audience", "outline", "workspace")
	d.Answer(
		DraftReleaseAudienceAnswer{Reader: DraftReleaseReaderUsers},
		mrtrtest.Respond("outline", mrtrtest.Text("A sampled answer.")),
		mrtrtest.Respond("workspace", mrtrtest.RootsOf("file:///workspace/1")),
	)
	d.WantAsks("repos", "summary")
	d.Answer(
		mrtrtest.Respond("repos", mrtrtest.RootsOf("file:///workspace/1")),
		mrtrtest.Respond("summary", mrtrtest.Text("A sampled answer.")),
	)
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestDraftReleaseHandlerMatrix runs the MRTR test matrix against DraftReleaseImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestDraftReleaseHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &DraftReleaseImpl{}
	mrtrtest.RunMatrix(t, NewDraftReleaseProgram(h), mrtrtest.Fixtures{
		Answers: mrtrtest.Answers(
			DraftReleaseAudienceAnswer{Reader: DraftReleaseReaderUsers},
			mrtrtest.Respond("outline", mrtrtest.Text("A sampled answer.")),
			mrtrtest.Respond("repos", mrtrtest.RootsOf("file:///workspace/1")),
			mrtrtest.Respond("summary", mrtrtest.Text("A sampled answer.")),
			mrtrtest.Respond("workspace", mrtrtest.RootsOf("file:///workspace/1")),
		),
		Args: map[string]any{"version": "v0.0.0"},
		Invalid: map[string]mcp.InputResponse{
			"audience":  mrtrtest.Accept(map[string]any{"reader": 12345}),
			"outline":   mrtrtest.Text(strings.Repeat("x", 2001)),
			"repos":     mrtrtest.RootsOf("file:///workspace/1", "file:///workspace/2", "file:///workspace/3", "file:///workspace/4", "file:///workspace/5", "file:///workspace/6", "file:///workspace/7", "file:///workspace/8", "file:///workspace/9"),
			"workspace": mrtrtest.RootsOf("file:///workspace/1", "file:///workspace/2", "file:///workspace/3", "file:///workspace/4"),
		},
		Other:        "bob",
		OtherArgs:    map[string]any{"version": "v9.9.9"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
