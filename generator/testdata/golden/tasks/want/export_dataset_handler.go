// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package exports

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ExportDatasetImpl implements ExportDatasetHandler for tool export_dataset.
// Give it what the methods need: a database handle, API clients.
type ExportDatasetImpl struct{}

var _ ExportDatasetHandler = (*ExportDatasetImpl)(nil)

// Authorize decides whether f.Call.Principal may run export_dataset with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *ExportDatasetImpl) Authorize(ctx context.Context, f *ExportDatasetFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("export_dataset: Authorize is not implemented yet")
}

// DatasetExists is the check of state lookup.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ExportDatasetImpl) DatasetExists(ctx context.Context, f *ExportDatasetFlow) error {
	// TODO: check datasetExists; set f.Continuation fields later states need.
	return errors.New("export_dataset: DatasetExists is not implemented yet")
}

// ExportDataset is the side effect of state export. Once it returned, it is not run again for
// operation id export-{datasetId}: retries replay its outcome. If the instance running it dies
// first, a retry runs it again after the lease (at least once): f.Call.Attempt.Takeover says so,
// and f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of
// the downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite
// refusal (recorded and replayed); any other error lets a retry try again.
func (h *ExportDatasetImpl) ExportDataset(ctx context.Context, f *ExportDatasetFlow) error {
	// TODO: perform exportDataset; record its results in f.Continuation.
	return errors.New("export_dataset: ExportDataset is not implemented yet")
}
