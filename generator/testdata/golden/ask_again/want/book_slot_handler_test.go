// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package releases

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestBookSlotHandler drives BookSlotImpl through one book_slot workflow as a client would:
// typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As
// another caller for the next rounds, d.Replay a round. The workflow starts as h.Principal
// ("alice" unless you set it): set h.Principal before DriveBookSlot to start one as another caller.
func TestBookSlotHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewBookSlotProgram(&BookSlotImpl{}))
	d := DriveBookSlot(t, h, BookSlotArgs{System: "example"})
	d.WantAsks("slot")
	d.Answer(BookSlotSlotAnswer{Window: BookSlotWindowNight})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestBookSlotHandlerMatrix runs the MRTR test matrix against BookSlotImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestBookSlotHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &BookSlotImpl{}
	mrtrtest.RunMatrix(t, NewBookSlotProgram(h), mrtrtest.Fixtures{
		Answers:      mrtrtest.Answers(BookSlotSlotAnswer{Window: BookSlotWindowNight}),
		Args:         map[string]any{"system": "example"},
		Invalid:      map[string]mcp.InputResponse{"slot": mrtrtest.Accept(map[string]any{"window": 12345})},
		Other:        "bob",
		OtherArgs:    map[string]any{"system": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
