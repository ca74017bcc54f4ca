// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package prompts

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestGreetingHandler drives GreetingImpl through one greeting workflow as a client would:
// typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As
// another caller for the next rounds, d.Replay a round. The workflow starts as h.Principal
// ("alice" unless you set it): set h.Principal before DriveGreeting to start one as another caller.
func TestGreetingHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewGreetingProgram(&GreetingImpl{}))
	d := DriveGreeting(t, h, GreetingArgs{})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestGreetingHandlerMatrix runs the MRTR test matrix against GreetingImpl.
// Fixtures.Variants cover the branches the fixture workflow does not take;
// Fixtures.Scenarios a scenario that needs other callers or arguments.
func TestGreetingHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &GreetingImpl{}
	mrtrtest.RunMatrix(t, NewGreetingProgram(h), mrtrtest.Fixtures{
		Args:         map[string]any{},
		Other:        "bob",
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
