// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package accounts

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestExportAuditLogHandler drives ExportAuditLogImpl through one export_audit_log workflow as a
// client would: typed arguments, each question answered with its typed answer, what it asks and how
// it ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As
// another caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice"
// unless you set it): set h.Principal before DriveExportAuditLog to start one as another caller.
func TestExportAuditLogHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewExportAuditLogProgram(&ExportAuditLogImpl{}))
	d := DriveExportAuditLog(t, h, ExportAuditLogArgs{Since: "2026-07-28"})
	d.WantAsks("format")
	d.Answer(ExportAuditLogFormatAnswer{Kind: ExportAuditLogKindCSV})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestExportAuditLogHandlerMatrix runs the MRTR test matrix against ExportAuditLogImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestExportAuditLogHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &ExportAuditLogImpl{}
	mrtrtest.RunMatrix(t, NewExportAuditLogProgram(h), mrtrtest.Fixtures{
		Answers:      mrtrtest.Answers(ExportAuditLogFormatAnswer{Kind: ExportAuditLogKindCSV}),
		Args:         map[string]any{"since": "2026-07-28"},
		Invalid:      map[string]mcp.InputResponse{"format": mrtrtest.Accept(map[string]any{"kind": 12345})},
		Other:        "bob",
		OtherArgs:    map[string]any{"since": "2026-07-29"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
