// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package accounts

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestResetPasswordHandler drives ResetPasswordImpl through one reset_password workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveResetPassword to start one as another caller.
func TestResetPasswordHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewResetPasswordProgram(&ResetPasswordImpl{}))
	d := DriveResetPassword(t, h, ResetPasswordArgs{UserID: "example"})
	d.WantAsks("confirm")
	d.Confirm()
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestResetPasswordHandlerMatrix runs the MRTR test matrix against ResetPasswordImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestResetPasswordHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &ResetPasswordImpl{}
	mrtrtest.RunMatrix(t, NewResetPasswordProgram(h), mrtrtest.Fixtures{
		Args:         map[string]any{"userId": "example"},
		Other:        "bob",
		OtherArgs:    map[string]any{"userId": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
