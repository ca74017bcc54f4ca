// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package exports

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestExportDatasetHandler drives ExportDatasetImpl through one export_dataset workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveExportDataset to start one as another caller.
func TestExportDatasetHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewExportDatasetProgram(&ExportDatasetImpl{}))
	d := DriveExportDataset(t, h, ExportDatasetArgs{DatasetID: "example"})
	d.WantAsks("confirm")
	d.Confirm()
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestExportDatasetHandlerMatrix runs the MRTR test matrix against ExportDatasetImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestExportDatasetHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &ExportDatasetImpl{}
	mrtrtest.RunMatrix(t, NewExportDatasetProgram(h), mrtrtest.Fixtures{
		Args:         map[string]any{"datasetId": "example"},
		Other:        "bob",
		OtherArgs:    map[string]any{"datasetId": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
