// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package cleanup

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestCleanUpBranchesHandler drives CleanUpBranchesImpl through one clean_up_branches workflow as a
// client would: typed arguments, each question answered with its typed answer, what it asks and how
// it ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As
// another caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice"
// unless you set it): set h.Principal before DriveCleanUpBranches to start one as another caller.
func TestCleanUpBranchesHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewCleanUpBranchesProgram(&CleanUpBranchesImpl{}))
	d := DriveCleanUpBranches(t, h, CleanUpBranchesArgs{Repo: "example"})
	d.WantAsks("confirm")
	d.Confirm()
	d.WantAsks("staleBranches")
	d.Confirm()
	d.WantAsks("tags")
	d.Confirm()
	d.WantAsks("final")
	d.Confirm()
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestCleanUpBranchesHandlerMatrix runs the MRTR test matrix against CleanUpBranchesImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestCleanUpBranchesHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &CleanUpBranchesImpl{}
	mrtrtest.RunMatrix(t, NewCleanUpBranchesProgram(h), mrtrtest.Fixtures{
		Args:         map[string]any{"repo": "example"},
		Other:        "bob",
		OtherArgs:    map[string]any{"repo": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
