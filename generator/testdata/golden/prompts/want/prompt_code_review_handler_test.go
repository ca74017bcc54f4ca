// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package prompts

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestCodeReviewHandler drives CodeReviewImpl through one code_review workflow as a client would:
// typed arguments, each question answered with its typed answer, what it asks and how it ends
// checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another caller
// for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless you set
// it): set h.Principal before DriveCodeReview to start one as another caller.
func TestCodeReviewHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewCodeReviewProgram(&CodeReviewImpl{}))
	d := DriveCodeReview(t, h, CodeReviewArgs{
		Change: "example",
		Focus:  "correctness",
	})
	d.WantAsks("style")
	d.Answer(CodeReviewStyleAnswer{
		MaxComments: 1,
		Tone:        CodeReviewToneStrict,
	})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestCodeReviewHandlerMatrix runs the MRTR test matrix against CodeReviewImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestCodeReviewHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &CodeReviewImpl{}
	mrtrtest.RunMatrix(t, NewCodeReviewProgram(h), mrtrtest.Fixtures{
		Answers: mrtrtest.Answers(CodeReviewStyleAnswer{
			MaxComments: 1,
			Tone:        CodeReviewToneStrict,
		}),
		Args:         map[string]any{"change": "example"},
		Invalid:      map[string]mcp.InputResponse{"style": mrtrtest.Accept(map[string]any{"tone": 12345})},
		Other:        "bob",
		OtherArgs:    map[string]any{"change": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
