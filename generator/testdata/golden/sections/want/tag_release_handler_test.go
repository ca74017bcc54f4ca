// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package releases

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestTagReleaseHandler drives TagReleaseImpl through one tag_release workflow as a client would:
// typed arguments, each question answered with its typed answer, what it asks and how it ends
// checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another caller
// for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless you set
// it): set h.Principal before DriveTagRelease to start one as another caller.
func TestTagReleaseHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewTagReleaseProgram(&TagReleaseImpl{}))
	d := DriveTagRelease(t, h, TagReleaseArgs{ReleaseID: "example"})
	d.WantAsks("note", "places")
	d.Answer(
		TagReleaseNoteAnswer{
			Picked: []string{"example"},
			Text:   new("example"),
		},
		mrtrtest.Respond("places", mrtrtest.RootsOf("file:///workspace/1")),
	)
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestTagReleaseHandlerMatrix runs the MRTR test matrix against TagReleaseImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestTagReleaseHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &TagReleaseImpl{}
	mrtrtest.RunMatrix(t, NewTagReleaseProgram(h), mrtrtest.Fixtures{
		Answers: mrtrtest.Answers(
			TagReleaseNoteAnswer{
				Picked: []string{"example"},
				Text:   new("example"),
			},
			mrtrtest.Respond("places", mrtrtest.RootsOf("file:///workspace/1")),
		),
		Args:         map[string]any{"releaseId": "example"},
		Invalid:      map[string]mcp.InputResponse{"places": mrtrtest.RootsOf("file:///workspace/1", "file:///workspace/2", "file:///workspace/3")},
		Other:        "bob",
		OtherArgs:    map[string]any{"releaseId": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
