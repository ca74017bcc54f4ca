// Package problem is the one catalogue of what generated validators tell a
// user (or a model) about a value they must correct: "ticketId: at most 12
// characters (got 14)". The runtime reports problems with these words
// (through mrtrimpl.Problems), the generator writes its validation tests'
// expectations with them, and mrtrtest recognises a question asked again by
// Correct's prefix, so the three cannot drift apart.
//
// Every problem starts with the label of the value it is about: a field's
// name, "name[]" for items of a list, "name[3]" for one item.
package problem

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Required: a required value is missing.
func Required(label string) string { return label + ": required" }

// WrongType: the value has another JSON type than want ("a string",
// "an integer", "a list").
func WrongType(label, want string) string { return label + ": expected " + want }

// ItemWrongType: item i of a list has another JSON type than want.
func ItemWrongType(label string, i int, want string) string {
	return fmt.Sprintf("%s[%d]: expected %s", label, i, want)
}

// Unknown: an argument the tool does not declare.
func Unknown(label string) string { return label + ": unknown argument" }

// TooShort and TooLong bound a string's length in characters.
func TooShort(label string, minLength, got int) string {
	return fmt.Sprintf("%s: at least %d characters (got %d)", label, minLength, got)
}

// TooLong: see TooShort.
func TooLong(label string, maxLength, got int) string {
	return fmt.Sprintf("%s: at most %d characters (got %d)", label, maxLength, got)
}

// NoMatch: a string does not match the spec's pattern.
func NoMatch(label, pattern string) string { return label + ": must match " + pattern }

// BadFormat: a string is not in its format (email, uri, date, date-time).
func BadFormat(label, format string) string { return label + ": must be a valid " + format }

// BelowMinimum and AboveMaximum bound a number.
func BelowMinimum(label string, minimum float64) string {
	return label + ": at least " + Number(minimum)
}

// AboveMaximum: see BelowMinimum.
func AboveMaximum(label string, maximum float64) string {
	return label + ": at most " + Number(maximum)
}

// NotOneOf: a value outside an enum's values (listed as "a, b, c").
func NotOneOf(label, values string) string { return label + ": must be one of " + values }

// NotOffered: values that are not among the options a form offered (the
// values of a dynamic enum, listed as "a, b, c"). got names them, each
// once, quoted and cut to 40 characters: one problem for a list however
// many of its items were not offered. Without got (code generated before
// values were named) the problem names none.
func NotOffered(label, values string, got ...string) string {
	var named []string
	for _, v := range got {
		if q := quoteCut(v); !slices.Contains(named, q) {
			named = append(named, q)
		}
	}
	switch len(named) {
	case 0:
		return label + ": must be one of the options offered (" + values + ")"
	case 1:
		return label + ": " + named[0] + " is not one of the options offered (" + values + ")"
	}
	return label + ": " + strings.Join(named, ", ") + " are not among the options offered (" + values + ")"
}

// quoteCut quotes a value a client sent for a problem, cut to 40
// characters: a problem repeats it, not all of it.
func quoteCut(v string) string {
	if r := []rune(v); len(r) > 40 {
		return strconv.Quote(string(r[:40])) + "…"
	}
	return strconv.Quote(v)
}

// TooFew and TooMany bound how many values a list holds.
func TooFew(label string, minItems int) string {
	return fmt.Sprintf("%s: choose at least %d", label, minItems)
}

// TooMany: see TooFew.
func TooMany(label string, maxItems int) string {
	return fmt.Sprintf("%s: choose at most %d", label, maxItems)
}

// Repeated: a list that must hold each value once repeats some ("a, b").
func Repeated(label, repeated string) string {
	return label + ": choose each value once (repeated: " + repeated + ")"
}

// Invalid is what a custom validator said (mrtr.Invalid) about a value.
func Invalid(label, message string) string { return label + ": " + message }

// Number writes a bound the way a spec author wrote it: 18, 0.5, 1000000.
func Number(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// CorrectPrefix starts the part of a question asked again that lists what
// to correct.
const CorrectPrefix = "Please correct: "

// Correct appends the problems of a previous answer to a question, so the
// user sees what to fix when it is asked again.
func Correct(message string, problems []string) string {
	if len(problems) == 0 {
		return message
	}
	return message + "\n\n" + CorrectPrefix + strings.Join(problems, "; ") + "."
}

// Again adds to a question why it is asked again: the message a check
// refused the previous answer with (mrtr.AskAgain), after a blank line.
func Again(message, why string) string {
	if why == "" {
		return message
	}
	return message + "\n\n" + why
}

// The problems of a roots answer (roots/list), which has no label.

// RootsTooFew: fewer roots than the request needs.
func RootsTooFew(minItems, got int) string {
	return fmt.Sprintf("at least %d roots are needed, got %d", minItems, got)
}

// RootsTooMany: more roots than the request accepts.
func RootsTooMany(maxItems, got int) string {
	return fmt.Sprintf("at most %d roots are accepted, got %d", maxItems, got)
}

// RootTooLong: a root URI over the runtime's bound.
func RootTooLong(maxBytes int) string { return fmt.Sprintf("root URI longer than %d bytes", maxBytes) }

// RootNotAbsolute: a root that is not an absolute URI.
func RootNotAbsolute(uri string) string { return fmt.Sprintf("root %q is not an absolute URI", uri) }

// NotAnObject: the arguments of a call are not a JSON object.
const NotAnObject = "arguments must be a JSON object"

// FewerItems and MoreItems bound a list the server filled itself (a
// continuation field a handler set): the words are for its developers.
func FewerItems(label string, minItems int) string {
	return fmt.Sprintf("%s: at least %d items", label, minItems)
}

// OptionWithoutValue: item i of a list of options a handler filled has no
// value, so no answer could choose it.
func OptionWithoutValue(label string, i int) string {
	return fmt.Sprintf("%s[%d]: an option needs a value", label, i)
}

// OptionTwice: a list of options a handler filled offers one value twice.
func OptionTwice(label, value string) string {
	return fmt.Sprintf("%s: the value %q is offered twice", label, value)
}

// MoreItems: see FewerItems.
func MoreItems(label string, maxItems int) string {
	return fmt.Sprintf("%s: at most %d items", label, maxItems)
}

// NotABoolean: a confirmation gate's form came back without its boolean.
func NotABoolean(field string) string { return field + ": answer true or false" }

// The problems of an answer that is not what its request asked for (the
// client sent another result type, or nothing usable).
const (
	NotAnElicitResult   = "expected an elicitation result"
	NotASamplingResult  = "expected a sampling result"
	SamplingWithoutText = "the sampling result has no text"
	NotARootsList       = "expected a roots list"
	// URLStepUpfront: the "inputs" argument answered a URL-mode step,
	// which only the page its URL opens can complete.
	URLStepUpfront = "inputs: this step is completed on the page its URL opens, not in the arguments"
)

// UnknownAction: an elicitation result with an action other than accept,
// decline and cancel.
func UnknownAction(action string) string { return fmt.Sprintf("unknown elicitation action %q", action) }

// UpfrontWrongType: an answer given in the "inputs" argument has another
// type than want.
func UpfrontWrongType(want string) string { return "inputs: expected " + want }

// NotTyped: a typed confirmation's form came back without its text.
func NotTyped(field, want string) string {
	return field + ": type " + Quote(want) + " to confirm"
}

// TypedMismatch: the text typed to confirm is not the one asked for; left
// attempts remain before the confirmation counts as refused.
func TypedMismatch(field, want string, left int) string {
	return fmt.Sprintf("%s: that is not %s; type it exactly as shown %s", field, Quote(want), AttemptsLeft(left))
}

// AttemptsLeft says how many answers the user may still give: "(2
// attempts left)", "(1 attempt left)".
func AttemptsLeft(left int) string {
	if left == 1 {
		return "(1 attempt left)"
	}
	return fmt.Sprintf("(%d attempts left)", left)
}

// Quote puts a value the user must type between typographic quotes: “v”.
func Quote(v string) string { return "\u201c" + v + "\u201d" }
