// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package survey

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestRunSurveyHandler drives RunSurveyImpl through one run_survey workflow as a client would:
// typed arguments, each question answered with its typed answer, what it asks and how it ends
// checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another caller
// for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless you set
// it): set h.Principal before DriveRunSurvey to start one as another caller.
func TestRunSurveyHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewRunSurveyProgram(&RunSurveyImpl{}))
	d := DriveRunSurvey(t, h, RunSurveyArgs{CustomerID: "c-42"})
	d.WantAsks("form")
	d.Answer(RunSurveyFormAnswer{
		Age:        42,
		Birthday:   "2026-07-28",
		Channels:   []RunSurveyChannels{RunSurveyChannelsMail},
		Code:       "AA-000",
		Color:      RunSurveyColorRed,
		Email:      "ada@example.com",
		Homepage:   new("https://example.com/a"),
		LastSeen:   new("2026-01-02T03:04:05Z"),
		Newsletter: true,
		Nickname:   "Ada",
		Rating:     1.0,
		Size:       new(RunSurveySizeS),
		Topics:     []RunSurveyTopics{RunSurveyTopicsShipping, RunSurveyTopicsReturns},
		Vip:        new(true),
		Visits:     1,
		Weight:     new(1.0),
	})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestRunSurveyHandlerMatrix runs the MRTR test matrix against RunSurveyImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestRunSurveyHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &RunSurveyImpl{}
	mrtrtest.RunMatrix(t, NewRunSurveyProgram(h), mrtrtest.Fixtures{
		Answers: mrtrtest.Answers(RunSurveyFormAnswer{
			Age:        42,
			Birthday:   "2026-07-28",
			Channels:   []RunSurveyChannels{RunSurveyChannelsMail},
			Code:       "AA-000",
			Color:      RunSurveyColorRed,
			Email:      "ada@example.com",
			Homepage:   new("https://example.com/a"),
			LastSeen:   new("2026-01-02T03:04:05Z"),
			Newsletter: true,
			Nickname:   "Ada",
			Rating:     1.0,
			Size:       new(RunSurveySizeS),
			Topics:     []RunSurveyTopics{RunSurveyTopicsShipping, RunSurveyTopicsReturns},
			Vip:        new(true),
			Visits:     1,
			Weight:     new(1.0),
		}),
		Args: map[string]any{"customerId": "c-42"},
		Invalid: map[string]mcp.InputResponse{"form": mrtrtest.Accept(map[string]any{
			"age":        "not a number",
			"channels":   []any{"mail"},
			"code":       "AA-000",
			"color":      "red",
			"email":      "ada@example.com",
			"newsletter": true,
			"nickname":   "Ada",
			"rating":     1.0,
		})},
		Other:        "bob",
		OtherArgs:    map[string]any{"customerId": "c-9"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
