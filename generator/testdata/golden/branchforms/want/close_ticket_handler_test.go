// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package tickets

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestCloseTicketHandler drives CloseTicketImpl through one close_ticket workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveCloseTicket to start one as another caller.
func TestCloseTicketHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewCloseTicketProgram(&CloseTicketImpl{}))
	d := DriveCloseTicket(t, h, CloseTicketArgs{
		ByManager: true,
		TicketID:  "example",
	})
	d.WantAsks("closing")
	d.Answer(CloseTicketClosingAnswer{
		CloseReason: CloseTicketCloseReasonResolved,
		Note:        new("example"),
		Ticket:      new("CHG-0"),
	})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestCloseTicketHandlerMatrix runs the MRTR test matrix against CloseTicketImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestCloseTicketHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &CloseTicketImpl{}
	mrtrtest.RunMatrix(t, NewCloseTicketProgram(h), mrtrtest.Fixtures{
		Answers: mrtrtest.Answers(CloseTicketClosingAnswer{
			CloseReason: CloseTicketCloseReasonResolved,
			Note:        new("example"),
			Ticket:      new("CHG-0"),
		}),
		Args:         map[string]any{"byManager": true, "ticketId": "example"},
		Invalid:      map[string]mcp.InputResponse{"closing": mrtrtest.Accept(map[string]any{"closeReason": 12345})},
		Other:        "bob",
		OtherArgs:    map[string]any{"byManager": false, "ticketId": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
