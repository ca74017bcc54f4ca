// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package treasury

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestReleaseFundsHandler drives ReleaseFundsImpl through one release_funds workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveReleaseFunds to start one as another caller.
func TestReleaseFundsHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewReleaseFundsProgram(&ReleaseFundsImpl{}))
	d := DriveReleaseFunds(t, h, ReleaseFundsArgs{
		Account: "acc_0",
		Amount:  1,
	})
	// approve is an approval gate (docs/approvals.md): approvers the policy admits decide it,
	// not an answer in this chat (your Approvers hook must return them).
	d.WantAsks("confirm")
	d.ApproveAs("bob", "checked")
	d.ApproveAs("carol", "checked")
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestReleaseFundsHandlerMatrix runs the MRTR test matrix against ReleaseFundsImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestReleaseFundsHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &ReleaseFundsImpl{}
	mrtrtest.RunMatrix(t, NewReleaseFundsProgram(h), mrtrtest.Fixtures{
		Args:         map[string]any{"account": "acc_0", "amount": int64(1)},
		Other:        "bob",
		OtherArgs:    map[string]any{"account": "acc_9999999999", "amount": int64(2)},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
