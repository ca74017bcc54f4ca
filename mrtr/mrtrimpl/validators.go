package mrtrimpl

import (
	"errors"
	"fmt"
)

// validatorError is a custom validator's failure that is not a refusal
// made with mrtr.Invalid: the value could not be checked. The round ends as a
// dependency error (outcome error) with a generic message; this error,
// with the validator's own text, goes to the log only. It unwraps to the
// validator's error, so a cancelled context is still a cancellation, and a
// Rejection (mrtr.Reject) still ends the workflow with its message, as it
// does from a check.
type validatorError struct {
	// Validator is the validator's name in the spec; Value names the value
	// it was given ("email", "interests[]", "terms.motto").
	Validator, Value string
	Err              error
}

func (e *validatorError) Error() string {
	return fmt.Sprintf("validator %s of %s failed: %v", e.Validator, e.Value, e.Err)
}

func (e *validatorError) Unwrap() error { return e.Err }

// ValidatorFailed wraps what validator returned for value when it is not
// a refusal made with mrtr.Invalid (see validatorError).
func (Export) ValidatorFailed(validator, value string, err error) error {
	return &validatorError{Validator: validator, Value: value, Err: err}
}

// errReadNotGiven is what a validator with context fails with when the
// flow does not hold an answer it reads (errors.Is): a dependency failure,
// never shown to the user.
var errReadNotGiven = errors.New("a validator with context reads an answer the flow does not hold")

// ReadNotGiven is the error of validator, which reads answer field read
// ("ticket.id") that the flow does not hold. Lint proves every answer a
// validator reads is given on every path to the ask that uses it; this is
// what happens when that finding was silenced.
func (Export) ReadNotGiven(validator, read string) error {
	return fmt.Errorf("%w: validator %s reads %s, which is not answered on this path", errReadNotGiven, validator, read)
}
