package testprog

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// PayoutThreshold is the amount above which a payout needs an approver.
const PayoutThreshold = 1000

// PayoutImpl is the payout handler the matrix tests drive: amounts above
// PayoutThreshold take the approval branch (the only one that asks and
// pays), the others the nightly batch. Only the arguments choose the
// branch: it cannot be steered as the generated fake can.
type PayoutImpl struct {
	paid atomic.Int64
	down atomic.Bool
}

// errBankDown is what the handler's bank says while it is broken.
var errBankDown = errors.New("payout: the bank is unreachable")

var _ PayoutHandler = (*PayoutImpl)(nil)

func (h *PayoutImpl) Authorize(ctx context.Context, f *PayoutFlow) error {
	if f.Call.Principal == "mallory" {
		return mrtr.Forbidden("mallory may not pay anyone")
	}
	return nil
}

func (h *PayoutImpl) RoutePayout(ctx context.Context, f *PayoutFlow) (PayoutRoutePayoutOutcome, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if h.down.Load() {
		return 0, errBankDown
	}
	if f.Args.Amount > PayoutThreshold {
		return PayoutRoutePayoutLarge, nil
	}
	return PayoutRoutePayoutSmall, nil
}

func (h *PayoutImpl) SendPayout(ctx context.Context, f *PayoutFlow) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if h.down.Load() {
		return errBankDown
	}
	h.paid.Add(1)
	return nil
}

// Paid counts the payouts sent (Fixtures.Effects).
func (h *PayoutImpl) Paid() int { return int(h.paid.Load()) }

// Break makes the bank unreachable until restore is called (Fixtures.Break).
func (h *PayoutImpl) Break() (restore func()) {
	h.down.Store(true)
	return func() { h.down.Store(false) }
}
