package testprog

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// ReaskImpl approves release tickets listed in Approved and asks again for
// any other; with MisplacedAskAgain its lookup check returns mrtr.AskAgain,
// which its state does not allow. Checks counts TicketApproved calls.
type ReaskImpl struct {
	Approved          map[string]bool
	MisplacedAskAgain bool
	Checks            atomic.Int32
}

var _ ReaskHandler = (*ReaskImpl)(nil)

func (h *ReaskImpl) Authorize(ctx context.Context, f *ReaskFlow) error { return nil }

func (h *ReaskImpl) ReleaseExists(ctx context.Context, f *ReaskFlow) error {
	if h.MisplacedAskAgain {
		return mrtr.AskAgain("lookup cannot ask again")
	}
	return nil
}

func (h *ReaskImpl) TicketApproved(ctx context.Context, f *ReaskFlow) error {
	h.Checks.Add(1)
	if f.Ticket == nil {
		return errors.New("no ticket answer")
	}
	if !h.Approved[f.Ticket.ID] {
		return mrtr.AskAgain("ticket %s is not approved for release %s; pick another", f.Ticket.ID, f.Args.Release)
	}
	return nil
}
