// Package failure defines, once, the errors that cross between the engine
// (package mrtr) and the plumbing generated code calls (package mrtrimpl)
// and that the engine tells apart: arguments that break their schema, a
// check's refusal that asks again, a validator's refusal of a value, and a
// continuation that passed a gate which now asks another question. Package
// mrtr makes the handler-facing ones (mrtr.AskAgain, mrtr.Invalid,
// mrtr.IsInvalid); mrtrimpl returns and recognises them; neither exports
// their types, so a handler author finds each name once, in mrtr.
package failure

import (
	"errors"
	"strings"
)

// ArgumentError reports arguments that failed validation, one problem each:
// the engine answers it with an invalid-arguments result.
type ArgumentError struct {
	Problems []string
}

func (e *ArgumentError) Error() string {
	return "invalid arguments: " + strings.Join(e.Problems, "; ")
}

// AskAgainError is what a check returns to refuse an answer for a reason
// the user can fix: the workflow goes back to the ask its state's askAgain
// names, and Message is shown with the question. mrtr.AskAgain makes one.
type AskAgainError struct{ Message string }

func (e *AskAgainError) Error() string { return "ask again: " + e.Message }

// InvalidValue is what a custom validator returns for a value that is
// wrong. Its message is shown to the user: an answer is asked for again
// with it, an argument is refused naming it. mrtr.Invalid makes one.
type InvalidValue struct{ Message string }

func (e *InvalidValue) Error() string { return e.Message }

// ErrGateChanged is the error of a continuation that passed a confirmation
// gate whose question is not the same on this build (its message, or the
// values it shows, changed): what the user confirmed is not what this
// build would have asked, so the workflow does not go on (log reason
// gate_changed).
var ErrGateChanged = errors.New("mrtr: a confirmation gate the workflow passed asks another question on this build")
