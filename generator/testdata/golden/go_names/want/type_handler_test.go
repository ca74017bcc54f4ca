// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package names

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestTypeHandler drives TypeImpl through one type workflow as a client would:
// typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As
// another caller for the next rounds, d.Replay a round. The workflow starts as h.Principal
// ("alice" unless you set it): set h.Principal before DriveType to start one as another caller.
func TestTypeHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewTypeProgram(&TypeImpl{}))
	d := DriveType(t, h, TypeArgs{})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestTypeHandlerMatrix runs the MRTR test matrix against TypeImpl.
// Fixtures.Variants cover the branches the fixture workflow does not take;
// Fixtures.Scenarios a scenario that needs other callers or arguments.
func TestTypeHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &TypeImpl{}
	mrtrtest.RunMatrix(t, NewTypeProgram(h), mrtrtest.Fixtures{
		Args:         map[string]any{},
		Other:        "bob",
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
