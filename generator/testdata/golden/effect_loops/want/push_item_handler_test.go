// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package loops

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestPushItemHandler drives PushItemImpl through one push_item workflow as a client would:
// typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As
// another caller for the next rounds, d.Replay a round. The workflow starts as h.Principal
// ("alice" unless you set it): set h.Principal before DrivePushItem to start one as another caller.
func TestPushItemHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewPushItemProgram(&PushItemImpl{}))
	d := DrivePushItem(t, h, PushItemArgs{Item: "example"})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestPushItemHandlerMatrix runs the MRTR test matrix against PushItemImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestPushItemHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &PushItemImpl{}
	mrtrtest.RunMatrix(t, NewPushItemProgram(h), mrtrtest.Fixtures{
		Args:         map[string]any{"item": "example"},
		Other:        "bob",
		OtherArgs:    map[string]any{"item": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
