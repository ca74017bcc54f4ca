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

// TestSuggestTitleHandler drives SuggestTitleImpl through one suggest_title workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveSuggestTitle to start one as another caller.
func TestSuggestTitleHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewSuggestTitleProgram(&SuggestTitleImpl{}))
	d := DriveSuggestTitle(t, h, SuggestTitleArgs{Topic: "example"})
	d.WantAsks("folders", "title")
	d.Answer(
		mrtrtest.Respond("folders", mrtrtest.RootsOf("file:///workspace/1")),
		mrtrtest.Respond("title", mrtrtest.Text("A sampled answer.")),
	)
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestSuggestTitleHandlerMatrix runs the MRTR test matrix against SuggestTitleImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestSuggestTitleHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &SuggestTitleImpl{}
	mrtrtest.RunMatrix(t, NewSuggestTitleProgram(h), mrtrtest.Fixtures{
		Answers: mrtrtest.Answers(
			mrtrtest.Respond("folders", mrtrtest.RootsOf("file:///workspace/1")),
			mrtrtest.Respond("title", mrtrtest.Text("A sampled answer.")),
		),
		Args: map[string]any{"topic": "example"},
		Invalid: map[string]mcp.InputResponse{
			"folders": mrtrtest.RootsOf("file:///workspace/1", "file:///workspace/2", "file:///workspace/3"),
			"title":   mrtrtest.Text(strings.Repeat("x", 81)),
		},
		Other:        "bob",
		OtherArgs:    map[string]any{"topic": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
