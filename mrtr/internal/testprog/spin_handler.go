package testprog

import "context"

// SpinImpl never stops: it shows that the engine bounds a round.
type SpinImpl struct{}

var _ SpinHandler = (*SpinImpl)(nil)

func (h *SpinImpl) Authorize(ctx context.Context, f *SpinFlow) error { return nil }

func (h *SpinImpl) TurnWheel(ctx context.Context, f *SpinFlow) (SpinTurnWheelOutcome, error) {
	return SpinTurnWheelAgain, nil
}
