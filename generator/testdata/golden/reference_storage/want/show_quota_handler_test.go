// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package accounts

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestShowQuotaHandler drives ShowQuotaImpl through one show_quota workflow as a client would:
// typed arguments, each question answered with its typed answer, what it asks and how it ends
// checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another caller
// for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless you set
// it): set h.Principal before DriveShowQuota to start one as another caller.
func TestShowQuotaHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewShowQuotaProgram(&ShowQuotaImpl{}))
	d := DriveShowQuota(t, h, ShowQuotaArgs{})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestShowQuotaHandlerMatrix runs the MRTR test matrix against ShowQuotaImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestShowQuotaHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &ShowQuotaImpl{}
	mrtrtest.RunMatrix(t, NewShowQuotaProgram(h), mrtrtest.Fixtures{
		Args:         map[string]any{},
		Other:        "bob",
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
