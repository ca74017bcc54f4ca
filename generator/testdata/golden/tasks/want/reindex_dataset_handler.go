// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package exports

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ReindexDatasetImpl implements ReindexDatasetHandler for tool reindex_dataset.
// Give it what the methods need: a database handle, API clients.
type ReindexDatasetImpl struct{}

var _ ReindexDatasetHandler = (*ReindexDatasetImpl)(nil)

// Authorize decides whether f.Call.Principal may run reindex_dataset with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *ReindexDatasetImpl) Authorize(ctx context.Context, f *ReindexDatasetFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("reindex_dataset: Authorize is not implemented yet")
}

// ScanDataset is the check of state scan.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ReindexDatasetImpl) ScanDataset(ctx context.Context, f *ReindexDatasetFlow) error {
	// TODO: check scanDataset; set f.Continuation fields later states need.
	return errors.New("reindex_dataset: ScanDataset is not implemented yet")
}

// ReindexDataset is the side effect of state reindex. Once it returned, it is not run again for
// operation id reindex-{datasetId}: retries replay its outcome. If the instance running it dies
// first, a retry runs it again after the lease (at least once): f.Call.Attempt.Takeover says so,
// and f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of
// the downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite
// refusal (recorded and replayed); any other error lets a retry try again.
func (h *ReindexDatasetImpl) ReindexDataset(ctx context.Context, f *ReindexDatasetFlow) error {
	// TODO: perform reindexDataset; record its results in f.Continuation.
	return errors.New("reindex_dataset: ReindexDataset is not implemented yet")
}
