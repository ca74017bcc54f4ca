// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package names

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestSHandler drives SImpl through one s workflow as a client would:
// typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As
// another caller for the next rounds, d.Replay a round. The workflow starts as h.Principal
// ("alice" unless you set it): set h.Principal before DriveS to start one as another caller.
func TestSHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewSProgram(&SImpl{}))
	d := DriveS(t, h, SArgs{})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestSHandlerMatrix runs the MRTR test matrix against SImpl.
// Fixtures.Variants cover the branches the fixture workflow does not take;
// Fixtures.Scenarios a scenario that needs other callers or arguments.
func TestSHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &SImpl{}
	mrtrtest.RunMatrix(t, NewSProgram(h), mrtrtest.Fixtures{
		Args:         map[string]any{},
		Other:        "bob",
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
