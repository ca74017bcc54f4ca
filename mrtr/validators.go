package mrtr

import (
	"context"
	"errors"
	"fmt"
)

// Custom validators (the spec's validators:, generated as handler methods
// such as NoSecrets(ctx, value string) error) follow the convention of
// checks: one kind of error is meant for the user, anything else is a
// dependency failure. A validator whose backend is down must not tell the
// user "Please correct: ticketId: platform: backend unavailable." and ask
// again; the round fails as a dependency error and the text goes to the log.

// InvalidValue is what a custom validator returns for a value that is
// wrong. Its message is shown to the user: an answer is asked for again
// with it, an argument is refused naming it. Make one with Invalid.
type InvalidValue struct{ msg string }

func (e *InvalidValue) Error() string { return e.msg }

// Invalid returns an InvalidValue with a formatted message for the user
// ("looks like a password; leave secrets out"). It is the only error a
// validator returns for a bad value: any other error (a backend that is
// down, a timeout) is a dependency failure, never shown to the user.
func Invalid(format string, args ...any) error {
	return &InvalidValue{msg: fmt.Sprintf(format, args...)}
}

// AddInvalid records the problem "label: message" when err is (or wraps)
// an InvalidValue, and reports whether it was. Generated validators call
// it with what a custom validator returned; on false they stop with
// ValidatorFailed. Only the InvalidValue's own message is shown, not the
// text of errors that wrap it, which may carry internal detail.
func (p *Problems) AddInvalid(label string, err error) bool {
	var iv *InvalidValue
	if !errors.As(err, &iv) {
		return false
	}
	p.Addf("%s: %s", label, iv.msg)
	return true
}

// ValidatorError is a custom validator's failure that is not an
// InvalidValue: the value could not be checked. The round ends as a
// dependency error (outcome error) with a generic message; this error,
// with the validator's own text, goes to the log only. It unwraps to the
// validator's error, so a cancelled context is still a cancellation, and a
// Rejection (mrtr.Reject) still ends the workflow with its message, as it
// does from a check.
type ValidatorError struct {
	// Validator is the validator's name in the spec; Value names the value
	// it was given ("email", "interests[]", "terms.motto").
	Validator, Value string
	Err              error
}

func (e *ValidatorError) Error() string {
	return fmt.Sprintf("validator %s of %s failed: %v", e.Validator, e.Value, e.Err)
}

func (e *ValidatorError) Unwrap() error { return e.Err }

// ValidatorFailed wraps what validator returned for value when it is not
// an InvalidValue (see ValidatorError).
func ValidatorFailed(validator, value string, err error) error {
	return &ValidatorError{Validator: validator, Value: value, Err: err}
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
func (e *Engine) argumentsFailed(ctx context.Context, rt *roundTelemetry, d *Descriptor, err error) (*Reply, error) {
	if _, ok := errors.AsType[*ArgumentError](err); ok {
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
