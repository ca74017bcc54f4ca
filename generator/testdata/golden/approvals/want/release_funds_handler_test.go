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
	// approve is an approval gate (docs/approvals.md): an approval by someone the policy
	// admits passes it, not an answer in this chat; drive on from here once you approve it.
	_ = d
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
		Args: map[string]any{"account": "acc_0", "amount": int64(1)},
		NotApplicable: map[string]string{
			mrtrtest.ScenarioCancellation:   "approval gate approve is passed by an approval record, not an answer, and the generated walks and matrix do not approve as another principal yet (Harness.Decide does): every way to an end of release_funds passes one",
			mrtrtest.ScenarioCompleteInput:  "approval gate approve is passed by an approval record, not an answer, and the generated walks and matrix do not approve as another principal yet (Harness.Decide does): every way to an end of release_funds passes one",
			mrtrtest.ScenarioDependency:     "approval gate approve is passed by an approval record, not an answer, and the generated walks and matrix do not approve as another principal yet (Harness.Decide does): every way to an end of release_funds passes one",
			mrtrtest.ScenarioDuplicateFinal: "approval gate approve is passed by an approval record, not an answer, and the generated walks and matrix do not approve as another principal yet (Harness.Decide does): every way to an end of release_funds passes one",
			mrtrtest.ScenarioExpired:        "approval gate approve is passed by an approval record, not an answer, and the generated walks and matrix do not approve as another principal yet (Harness.Decide does): every way to an end of release_funds passes one",
			mrtrtest.ScenarioHTTP:           "approval gate approve is passed by an approval record, not an answer, and the generated walks and matrix do not approve as another principal yet (Harness.Decide does): every way to an end of release_funds passes one",
			mrtrtest.ScenarioMissingInput:   "approval gate approve is passed by an approval record, not an answer, and the generated walks and matrix do not approve as another principal yet (Harness.Decide does)",
			mrtrtest.ScenarioOtherArguments: "approval gate approve is passed by an approval record, not an answer, and the generated walks and matrix do not approve as another principal yet (Harness.Decide does): every way to an end of release_funds passes one",
			mrtrtest.ScenarioOtherCaller:    "approval gate approve is passed by an approval record, not an answer, and the generated walks and matrix do not approve as another principal yet (Harness.Decide does): every way to an end of release_funds passes one",
			mrtrtest.ScenarioTampered:       "approval gate approve is passed by an approval record, not an answer, and the generated walks and matrix do not approve as another principal yet (Harness.Decide does): every way to an end of release_funds passes one",
			mrtrtest.ScenarioUnauthorized:   "approval gate approve is passed by an approval record, not an answer, and the generated walks and matrix do not approve as another principal yet (Harness.Decide does): every way to an end of release_funds passes one",
		},
		Other:        "bob",
		OtherArgs:    map[string]any{"account": "acc_9999999999", "amount": int64(2)},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
