package testprog

import (
	"context"
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
}

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
	if f.Args.Amount > PayoutThreshold {
		return PayoutRoutePayoutLarge, nil
	}
	return PayoutRoutePayoutSmall, nil
}

func (h *PayoutImpl) SendPayout(ctx context.Context, f *PayoutFlow) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	h.paid.Add(1)
	return nil
}

// Paid counts the payouts sent (Fixtures.Effects).
func (h *PayoutImpl) Paid() int { return int(h.paid.Load()) }
