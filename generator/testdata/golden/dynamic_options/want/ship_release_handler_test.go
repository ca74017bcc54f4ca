// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package release

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestShipReleaseHandler drives ShipReleaseImpl through one ship_release workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveShipRelease to start one as another caller.
func TestShipReleaseHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewShipReleaseProgram(&ShipReleaseImpl{}))
	d := DriveShipRelease(t, h, ShipReleaseArgs{Since: "v1.4"})
	d.WantAsks("plan")
	d.Answer(ShipReleasePlanAnswer{
		Backup:   new("u-ada"),
		Owner:    "u-ada",
		Services: []string{"search"},
	})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestShipReleaseHandlerMatrix runs the MRTR test matrix against ShipReleaseImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestShipReleaseHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &ShipReleaseImpl{}
	mrtrtest.RunMatrix(t, NewShipReleaseProgram(h), mrtrtest.Fixtures{
		Answers: mrtrtest.Answers(ShipReleasePlanAnswer{
			Backup:   new("u-ada"),
			Owner:    "u-ada",
			Services: []string{"search"},
		}),
		Args: map[string]any{"since": "v1.4"},
		Invalid: map[string]mcp.InputResponse{"plan": mrtrtest.Accept(map[string]any{
			"owner":    12345,
			"services": []any{"search"},
		})},
		Other:        "bob",
		OtherArgs:    map[string]any{"since": "v9.9"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
