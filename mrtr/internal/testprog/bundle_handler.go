package testprog

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// BundleImpl finds Services for any release; its ticket directory is
// Tickets (ticket id → the release it covers). While Down is set the
// directory is unreachable: the validator fails as a dependency.
// Validations counts TicketForRelease calls.
type BundleImpl struct {
	Services    []string
	Tickets     map[string]string
	Down        atomic.Bool
	Validations atomic.Int32
}

var _ BundleHandler = (*BundleImpl)(nil)

// ErrTicketDirectoryDown is what TicketForRelease fails with while Down:
// its text names an internal host, which must reach the log only.
var ErrTicketDirectoryDown = errors.New("ticket directory at 10.1.2.3:8443 is down")

func (h *BundleImpl) Authorize(ctx context.Context, f *BundleFlow) error { return nil }

func (h *BundleImpl) FindServices(ctx context.Context, f *BundleFlow) error {
	f.Continuation.Found = nil
	for _, s := range h.Services {
		f.Continuation.Found = append(f.Continuation.Found, mrtr.Option{Value: s, Title: "Service " + s})
	}
	return nil
}

func (h *BundleImpl) TicketForRelease(ctx context.Context, value string, in BundleTicketForReleaseReads) error {
	h.Validations.Add(1)
	if h.Down.Load() {
		return ErrTicketDirectoryDown
	}
	release, ok := h.Tickets[value]
	switch {
	case !ok:
		return mrtr.Invalid("there is no change ticket %s", value)
	case release != in.Release:
		return mrtr.Invalid("ticket %s covers release %s, not %s", value, release, in.Release)
	}
	return nil
}
