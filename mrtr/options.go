package mrtr

import "github.com/mrtrgen/mrtrgen/mrtr/internal/handlertypes"

// Option is one choice a check discovered while the workflow ran: Value is
// what an answer gives back (a customer id, a service name), Title what
// the client shows ("Jane Smith, London"). A spec declares a continuation
// list of them (items: {type: option}) and a form field that offers it
// (valuesFrom); the check fills the list:
//
//	f.Continuation.Matches = append(f.Continuation.Matches, mrtr.Option{Value: c.ID, Title: c.Name + ", " + c.City})
//
// The form then offers exactly these options, in this order, and takes
// only one of their values as the answer. The list travels in the
// continuation, so later rounds validate against what was offered without
// asking the check again. Values must be distinct and not empty, within
// the list's maxLength and pattern; the engine refuses to seal a list that
// is not.
type Option = handlertypes.Option
