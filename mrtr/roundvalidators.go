package mrtr

import (
	"context"
	"errors"
	"fmt"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/failure"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
)

// Custom validators (the spec's validators:, generated as handler methods
// such as NoSecrets(ctx, value string) error) follow the convention of
// checks: one kind of error is meant for the user, anything else is a
// dependency failure. A validator whose backend is down must not tell the
// user "Please correct: ticketId: platform: backend unavailable." and ask
// again; the round fails as a dependency error and the text goes to the log.

// Invalid returns an error with a formatted message for the user
// ("looks like a password; leave secrets out"). It is the only error a
// validator returns for a bad value: any other error (a backend that is
// down, a timeout) is a dependency failure, never shown to the user.
func Invalid(format string, args ...any) error {
	return &failure.InvalidValue{Message: fmt.Sprintf(format, args...)}
}

// IsInvalid reports whether err is (or wraps) a refusal made with Invalid:
// what a handler's test asserts of a custom validator given a bad value.
func IsInvalid(err error) bool {
	_, ok := errors.AsType[*failure.InvalidValue](err)
	return ok
}

// isCancellation reports whether err is the context's own error, ctx being
// done: the client went away, and the round is abandoned, not failed.
func isCancellation(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ctx.Err()))
}

// argumentsFailed turns an error of NewFlow into the round's outcome:
// arguments that break their schema (or an argument validator's
// InvalidValue) are an invalid-arguments result naming each problem; a cancelled context is
// returned as is; a Rejection from an argument validator ends the call
// with its message; anything else (an argument validator's backend is
// down) is a dependency failure: an error result with a generic message,
// the cause logged.
func (e *Engine) argumentsFailed(ctx context.Context, rt *roundTelemetry, d *mrtrimpl.Descriptor, err error) (*Reply, error) {
	if _, ok := errors.AsType[*failure.ArgumentError](err); ok {
		return invalidArguments(rt, err)
	}
	if isCancellation(ctx, err) {
		rt.outcome = "cancelled"
		return nil, ctx.Err()
	}
	if rej, ok := isRejection(err); ok {
		rt.outcome = string(OutcomeRejected)
		return &Reply{Final: &Final{Outcome: OutcomeRejected, Text: rej.msg}}, nil
	}
	rt.outcome = string(OutcomeError)
	e.log.ErrorContext(ctx, "mrtr: validating the arguments failed", "tool", d.Name, "error", err)
	return &Reply{Final: &Final{Outcome: OutcomeError, Text: fmt.Sprintf("%s: checking the arguments failed: a dependency failed; try again later", d.Name)}}, nil
}
