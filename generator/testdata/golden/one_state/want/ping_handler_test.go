// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package ping

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestPingHandler drives PingImpl through one ping workflow as a client would:
// typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As
// another caller for the next rounds, d.Replay a round. The workflow starts as h.Principal
// ("alice" unless you set it): set h.Principal before DrivePing to start one as another caller.
func TestPingHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewPingProgram(&PingImpl{}))
	d := DrivePing(t, h, PingArgs{})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestPingHandlerMatrix runs the MRTR test matrix against PingImpl.
// Fixtures.Variants cover the branches the fixture workflow does not take;
// Fixtures.Scenarios a scenario that needs other callers or arguments.
func TestPingHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &PingImpl{}
	mrtrtest.RunMatrix(t, NewPingProgram(h), mrtrtest.Fixtures{
		Args:         map[string]any{},
		Other:        "bob",
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
