// Package benchtickets is the business side of the ticket tool that the
// example server's benchmarks and the load test (examples/loadtest) run,
// the same for both variants (generated, hand-written): every ticket
// exists and is open, and closing one is counted. (The example server's
// seeded data holds three open tickets, each closed once, which cannot
// carry N workflows.)
package benchtickets

import (
	"context"
	"sync/atomic"

	"github.com/mrtrgen/mrtrgen/examples/generated/tickets"
	"github.com/mrtrgen/mrtrgen/mrtr"
)

// Business serves the hand-written variant (handtickets.Business) and,
// through Generated, the generated one. Closed counts the tickets closed.
type Business struct{ Closed atomic.Int64 }

// Subject returns the subject of ticket id; every non-empty id is open.
func (d *Business) Subject(id string) (string, error) {
	if id == "" {
		return "", mrtr.Reject("ticket %s does not exist", id)
	}
	return "Printer on floor 3 is jammed", nil
}

// Close counts one more ticket closed.
func (d *Business) Close(string, string, *string) error {
	d.Closed.Add(1)
	return nil
}

// NoSecrets is the example's comment validator, shared by both variants.
var NoSecrets = (&tickets.CloseSupportTicketImpl{}).NoSecrets

// Generated implements the generated handler interface on D.
type Generated struct{ D *Business }

// Authorize lets every caller in.
func (Generated) Authorize(context.Context, *tickets.CloseSupportTicketFlow) error { return nil }

// TicketIsOpen keeps the ticket's subject in the continuation.
func (h Generated) TicketIsOpen(_ context.Context, f *tickets.CloseSupportTicketFlow) error {
	s, err := h.D.Subject(f.Args.TicketID)
	f.Continuation.Subject = s
	return err
}

// CloseTicket closes the ticket.
func (h Generated) CloseTicket(_ context.Context, f *tickets.CloseSupportTicketFlow) error {
	return h.D.Close(f.Args.TicketID, string(f.Reason.CloseReason), f.Reason.Comment)
}

// NoSecrets is the comment validator.
func (Generated) NoSecrets(ctx context.Context, v string) error { return NoSecrets(ctx, v) }
