// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package branches

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestSummarizeDayHandler drives SummarizeDayImpl through one summarize_day workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveSummarizeDay to start one as another caller.
func TestSummarizeDayHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewSummarizeDayProgram(&SummarizeDayImpl{}))
	d := DriveSummarizeDay(t, h, SummarizeDayArgs{})
	d.WantAsks("summary")
	d.Answer(mrtrtest.Respond("summary", mrtrtest.Text("A sampled answer.")))
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestSummarizeDayHandlerMatrix runs the MRTR test matrix against SummarizeDayImpl.
// Fixtures.Variants cover the branches the fixture workflow does not take;
// Fixtures.Scenarios a scenario that needs other callers or arguments.
func TestSummarizeDayHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &SummarizeDayImpl{}
	mrtrtest.RunMatrix(t, NewSummarizeDayProgram(h), mrtrtest.Fixtures{
		Answers:       mrtrtest.Answers(mrtrtest.Respond("summary", mrtrtest.Text("A sampled answer."))),
		Args:          map[string]any{},
		NotApplicable: map[string]string{mrtrtest.ScenarioInvalid: "no request of summarize_day has a constraint an answer can break"},
		Other:         "bob",
		Unauthorized:  "mallory",
		WantOutcome:   vocab.OutcomeSuccess,
	})
}
