// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package names

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestX2faSetupHandler drives X2faSetupImpl through one 2fa-setup workflow as a client would: typed
// arguments, each question answered with its typed answer, what it asks and how it ends checked.
// Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another caller for the
// next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless you set it):
// set h.Principal before DriveX2faSetup to start one as another caller.
func TestX2faSetupHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewX2faSetupProgram(&X2faSetupImpl{}))
	d := DriveX2faSetup(t, h, X2faSetupArgs{
		Account: "example",
		Method:  X2faSetupMethodCafé,
	})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestX2faSetupHandlerMatrix runs the MRTR test matrix against X2faSetupImpl.
// Fixtures.Variants cover the branches the fixture workflow does not take;
// Fixtures.Scenarios a scenario that needs other callers or arguments.
func TestX2faSetupHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &X2faSetupImpl{}
	mrtrtest.RunMatrix(t, NewX2faSetupProgram(h), mrtrtest.Fixtures{
		Args:         map[string]any{"account": "example"},
		Other:        "bob",
		OtherArgs:    map[string]any{"account": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
