// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package accounts

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ExportAuditLogImpl implements ExportAuditLogHandler for tool export_audit_log.
// Give it what the methods need: a database handle, API clients.
type ExportAuditLogImpl struct{}

var _ ExportAuditLogHandler = (*ExportAuditLogImpl)(nil)

// Authorize decides whether f.Call.Principal may run export_audit_log with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *ExportAuditLogImpl) Authorize(ctx context.Context, f *ExportAuditLogFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("export_audit_log: Authorize is not implemented yet")
}

// CountRows is the check of state count.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *ExportAuditLogImpl) CountRows(ctx context.Context, f *ExportAuditLogFlow) error {
	// TODO: check countRows; set f.Continuation fields later states need.
	return errors.New("export_audit_log: CountRows is not implemented yet")
}

// ExportRows is the side effect of state export. Once it returned, it is not run again for this
// workflow round: retries replay its outcome. If the instance running it dies first, a retry runs
// it again after the lease (at least once): f.Call.Attempt.Takeover says so, and
// f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key of the
// downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite refusal
// (recorded and replayed); any other error lets a retry try again.
func (h *ExportAuditLogImpl) ExportRows(ctx context.Context, f *ExportAuditLogFlow) error {
	// TODO: perform exportRows; record its results in f.Continuation.
	return errors.New("export_audit_log: ExportRows is not implemented yet")
}
