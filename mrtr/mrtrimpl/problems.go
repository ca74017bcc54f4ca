package mrtrimpl

import (
	"errors"
	"net/mail"
	"net/url"
	"slices"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/failure"
	"github.com/mrtrgen/mrtrgen/mrtr/problem"
)

// Problems collects validation failures while decoding arguments or
// answers. Its methods word each problem as package problem does, the one
// catalogue the generated tests check against.
type Problems []string

// Add records a problem worded by package problem.
func (p *Problems) Add(text string) { *p = append(*p, text) }

// Err returns nil when there are no problems.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	return &failure.ArgumentError{Problems: slices.Clone(p)}
}

// Required records that a required value is missing.
func (p *Problems) Required(label string) { p.Add(problem.Required(label)) }

// WrongType records a value of another JSON type than want.
func (p *Problems) WrongType(label, want string) { p.Add(problem.WrongType(label, want)) }

// ItemWrongType records item i of a list having another type than want.
func (p *Problems) ItemWrongType(label string, i int, want string) {
	p.Add(problem.ItemWrongType(label, i, want))
}

// TooShort records a string shorter than minLength characters.
func (p *Problems) TooShort(label string, minLength, got int) {
	p.Add(problem.TooShort(label, minLength, got))
}

// TooLong records a string longer than maxLength characters.
func (p *Problems) TooLong(label string, maxLength, got int) {
	p.Add(problem.TooLong(label, maxLength, got))
}

// NoMatch records a string that does not match pattern.
func (p *Problems) NoMatch(label, pattern string) { p.Add(problem.NoMatch(label, pattern)) }

// BelowMinimum records a number below minimum.
func (p *Problems) BelowMinimum(label string, minimum float64) {
	p.Add(problem.BelowMinimum(label, minimum))
}

// AboveMaximum records a number above maximum.
func (p *Problems) AboveMaximum(label string, maximum float64) {
	p.Add(problem.AboveMaximum(label, maximum))
}

// NotOneOf records a value outside an enum's values ("a, b, c").
func (p *Problems) NotOneOf(label, values string) { p.Add(problem.NotOneOf(label, values)) }

// NotOffered records values (got: those of a list's items, or the one
// value) that are not among the options offered: one problem naming each
// value once.
func (p *Problems) NotOffered(label string, options []option, got ...string) {
	p.Add(problem.NotOffered(label, optionValues(options), got...))
}

// OptionWithoutValue records an option a handler stored without a value.
func (p *Problems) OptionWithoutValue(label string, i int) {
	p.Add(problem.OptionWithoutValue(label, i))
}

// OptionTwice records a value a handler offered twice.
func (p *Problems) OptionTwice(label, value string) { p.Add(problem.OptionTwice(label, value)) }

// TooFew records a list with fewer than minItems values.
func (p *Problems) TooFew(label string, minItems int) { p.Add(problem.TooFew(label, minItems)) }

// TooMany records a list with more than maxItems values.
func (p *Problems) TooMany(label string, maxItems int) { p.Add(problem.TooMany(label, maxItems)) }

// Repeated records values a list holds more than once ("a, b", as Join
// writes them).
func (p *Problems) Repeated(label, repeated string) { p.Add(problem.Repeated(label, repeated)) }

// CheckFormat records a problem when v is not in the named format
// (email, uri, date, date-time).
func (p *Problems) CheckFormat(name, format, v string) {
	ok := true
	switch format {
	case "email":
		a, err := mail.ParseAddress(v)
		ok = err == nil && a.Address == v
	case "uri":
		u, err := url.Parse(v)
		ok = err == nil && u.Scheme != ""
	case "date":
		_, err := time.Parse(time.DateOnly, v)
		ok = err == nil
	case "date-time":
		_, err := time.Parse(time.RFC3339, v)
		ok = err == nil
	}
	if !ok {
		p.Add(problem.BadFormat(name, format))
	}
}

// Unknown records a problem for each key of m that is not known.
func (p *Problems) Unknown(m map[string]any, known ...string) {
	var extra []string
	for k := range m {
		if !slices.Contains(known, k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range extra {
		p.Add(problem.Unknown(k))
	}
}

// AddInvalid records the problem "label: message" when err is (or wraps)
// a refusal made with mrtr.Invalid, and reports whether it was. Generated
// validators call it with what a custom validator returned; on false they
// stop with X.ValidatorFailed. Only the refusal's own message is shown, not the
// text of errors that wrap it, which may carry internal detail.
func (p *Problems) AddInvalid(label string, err error) bool {
	var iv *failure.InvalidValue
	if !errors.As(err, &iv) {
		return false
	}
	p.Add(problem.Invalid(label, iv.Message))
	return true
}

// FewerItems records a list the server filled with fewer than minItems
// values (a handler's mistake in a continuation field).
func (p *Problems) FewerItems(label string, minItems int) { p.Add(problem.FewerItems(label, minItems)) }

// MoreItems records a list the server filled with more than maxItems values.
func (p *Problems) MoreItems(label string, maxItems int) { p.Add(problem.MoreItems(label, maxItems)) }
