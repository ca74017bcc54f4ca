// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package tickets

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestFileTicketHandler drives FileTicketImpl through one file_ticket workflow as a client would:
// typed arguments, each question answered with its typed answer, what it asks and how it ends
// checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another caller
// for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless you set
// it): set h.Principal before DriveFileTicket to start one as another caller.
func TestFileTicketHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewFileTicketProgram(&FileTicketImpl{}))
	d := DriveFileTicket(t, h, FileTicketArgs{Release: "example"})
	d.WantAsks("change")
	d.Answer(FileTicketChangeAnswer{Kind: FileTicketKindMinor})
	d.WantAsks("ticket")
	d.Answer(FileTicketTicketAnswer{
		Backup:   new("example"),
		ID:       "example",
		Reviewer: "example",
	})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestFileTicketHandlerMatrix runs the MRTR test matrix against FileTicketImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestFileTicketHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &FileTicketImpl{}
	mrtrtest.RunMatrix(t, NewFileTicketProgram(h), mrtrtest.Fixtures{
		Answers: mrtrtest.Answers(
			FileTicketChangeAnswer{Kind: FileTicketKindMinor},
			FileTicketTicketAnswer{
				Backup:   new("example"),
				ID:       "example",
				Reviewer: "example",
			},
		),
		Args: map[string]any{"release": "example"},
		Invalid: map[string]mcp.InputResponse{
			"change": mrtrtest.Accept(map[string]any{"kind": 12345}),
			"ticket": mrtrtest.Accept(map[string]any{
				"id":       12345,
				"reviewer": "example",
			}),
		},
		Other:        "bob",
		OtherArgs:    map[string]any{"release": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
