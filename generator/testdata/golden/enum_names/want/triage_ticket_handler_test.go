// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package tickets

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestTriageTicketHandler drives TriageTicketImpl through one triage_ticket workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveTriageTicket to start one as another caller.
func TestTriageTicketHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewTriageTicketProgram(&TriageTicketImpl{}))
	d := DriveTriageTicket(t, h, TriageTicketArgs{TicketID: "example"})
	d.WantAsks("impact")
	d.Answer(TriageTicketImpactAnswer{Priority: TriageTicketImpactPriorityLow})
	d.WantAsks("customer", "internal")
	d.Answer(
		TriageTicketCustomerAnswer{
			Priority: TriageTicketCustomerPriorityWhenever,
			Tags:     []TriageTicketTags{TriageTicketTagsBug},
		},
		TriageTicketInternalAnswer{Tags: []TriageTicketInternalTags{TriageTicketInternalTagsP1}},
	)
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestTriageTicketHandlerMatrix runs the MRTR test matrix against TriageTicketImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestTriageTicketHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &TriageTicketImpl{}
	mrtrtest.RunMatrix(t, NewTriageTicketProgram(h), mrtrtest.Fixtures{
		Answers: mrtrtest.Answers(
			TriageTicketCustomerAnswer{
				Priority: TriageTicketCustomerPriorityWhenever,
				Tags:     []TriageTicketTags{TriageTicketTagsBug},
			},
			TriageTicketImpactAnswer{Priority: TriageTicketImpactPriorityLow},
			TriageTicketInternalAnswer{Tags: []TriageTicketInternalTags{TriageTicketInternalTagsP1}},
		),
		Args: map[string]any{"ticketId": "example"},
		Invalid: map[string]mcp.InputResponse{
			"customer": mrtrtest.Accept(map[string]any{"priority": 12345}),
			"impact":   mrtrtest.Accept(map[string]any{"priority": 12345}),
		},
		Other:        "bob",
		OtherArgs:    map[string]any{"ticketId": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
