// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package deploys

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestStartDeploymentHandler drives StartDeploymentImpl through one start_deployment workflow as a
// client would: typed arguments, each question answered with its typed answer, what it asks and how
// it ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As
// another caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice"
// unless you set it): set h.Principal before DriveStartDeployment to start one as another caller.
func TestStartDeploymentHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewStartDeploymentProgram(&StartDeploymentImpl{}))
	d := DriveStartDeployment(t, h, StartDeploymentArgs{
		Region:  StartDeploymentRegionEuWest,
		Service: "a0",
	})
	d.WantAsks("confirm")
	d.Confirm()
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestStartDeploymentHandlerMatrix runs the MRTR test matrix against StartDeploymentImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestStartDeploymentHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &StartDeploymentImpl{}
	mrtrtest.RunMatrix(t, NewStartDeploymentProgram(h), mrtrtest.Fixtures{
		Args:         map[string]any{"region": "eu-west", "service": "a0"},
		Other:        "bob",
		OtherArgs:    map[string]any{"region": "us-east", "service": "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
