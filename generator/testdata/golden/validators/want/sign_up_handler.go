// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package signup

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// SignUpImpl implements SignUpHandler for tool sign_up.
// Give it what the methods need: a database handle, API clients.
type SignUpImpl struct{}

var _ SignUpHandler = (*SignUpImpl)(nil)

// Authorize decides whether f.Call.Principal may run sign_up with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *SignUpImpl) Authorize(ctx context.Context, f *SignUpFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("sign_up: Authorize is not implemented yet")
}

// EmailAvailable is the check of state check.
// Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.
func (h *SignUpImpl) EmailAvailable(ctx context.Context, f *SignUpFlow) error {
	// TODO: check emailAvailable; set f.Continuation fields later states need.
	return errors.New("sign_up: EmailAvailable is not implemented yet")
}

// CreateAccount is the side effect of state create. Once it returned, it is not run again for
// operation id account-{email}-{interests}: retries replay its outcome. If the instance running it
// dies first, a retry runs it again after the lease (at least once): f.Call.Attempt.Takeover says
// so, and f.Call.Attempt.OperationID is the same on every attempt; pass it as the idempotency key
// of the downstream call. Store its results in f.Continuation. Return mrtr.Reject for a definite
// refusal (recorded and replayed); any other error lets a retry try again.
func (h *SignUpImpl) CreateAccount(ctx context.Context, f *SignUpFlow) error {
	// TODO: perform createAccount; record its results in f.Continuation.
	return errors.New("sign_up: CreateAccount is not implemented yet")
}

// MustBeTrue is custom validator mustBeTrue; it runs once value has passed the spec's built-in
// constraints. Return mrtr.Invalid saying what is wrong with value: the user is shown it (an answer
// is asked for again). Any other error means value could not be checked (a backend is down): the
// round fails as a dependency error, and the error goes to the log only.
func (h *SignUpImpl) MustBeTrue(ctx context.Context, value bool) error {
	// TODO: validate value; return nil when it is acceptable, mrtr.Invalid("...") saying what is
	// wrong when it is not.
	return errors.New("sign_up: MustBeTrue is not implemented yet")
}

// NoSecrets is custom validator noSecrets; it runs once value has passed the spec's built-in
// constraints. Rejects text that looks like a password or token. Return mrtr.Invalid saying what is
// wrong with value: the user is shown it (an answer is asked for again). Any other error means
// value could not be checked (a backend is down): the round fails as a dependency error, and the
// error goes to the log only.
func (h *SignUpImpl) NoSecrets(ctx context.Context, value string) error {
	// TODO: validate value; return nil when it is acceptable, mrtr.Invalid("...") saying what is
	// wrong when it is not.
	return errors.New("sign_up: NoSecrets is not implemented yet")
}

// NotDisposable is custom validator notDisposable; it runs once value has passed the spec's
// built-in constraints. Rejects throwaway e-mail domains. Return mrtr.Invalid saying what is wrong
// with value: the user is shown it (an answer is asked for again). Any other error means value
// could not be checked (a backend is down): the round fails as a dependency error, and the error
// goes to the log only.
func (h *SignUpImpl) NotDisposable(ctx context.Context, value string) error {
	// TODO: validate value; return nil when it is acceptable, mrtr.Invalid("...") saying what is
	// wrong when it is not.
	return errors.New("sign_up: NotDisposable is not implemented yet")
}

// PlausibleAge is custom validator plausibleAge; it runs once value has passed the spec's built-in
// constraints. Return mrtr.Invalid saying what is wrong with value: the user is shown it (an answer
// is asked for again). Any other error means value could not be checked (a backend is down): the
// round fails as a dependency error, and the error goes to the log only.
func (h *SignUpImpl) PlausibleAge(ctx context.Context, value int64) error {
	// TODO: validate value; return nil when it is acceptable, mrtr.Invalid("...") saying what is
	// wrong when it is not.
	return errors.New("sign_up: PlausibleAge is not implemented yet")
}

// SensibleRatio is custom validator sensibleRatio; it runs once value has passed the spec's
// built-in constraints. Rejects ratios no one would choose. Return mrtr.Invalid saying what is
// wrong with value: the user is shown it (an answer is asked for again). Any other error means
// value could not be checked (a backend is down): the round fails as a dependency error, and the
// error goes to the log only.
func (h *SignUpImpl) SensibleRatio(ctx context.Context, value float64) error {
	// TODO: validate value; return nil when it is acceptable, mrtr.Invalid("...") saying what is
	// wrong when it is not.
	return errors.New("sign_up: SensibleRatio is not implemented yet")
}
