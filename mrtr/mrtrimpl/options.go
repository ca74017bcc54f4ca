package mrtrimpl

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mrtrgen/mrtrgen/internal/plainjson"
)

// StringOptions offers a list of strings: each value is its own title.
func (Export) StringOptions(values []string) []option {
	out := make([]option, len(values))
	for i, v := range values {
		out[i] = option{Value: v, Title: v}
	}
	return out
}

// Offered reports whether v is the value of one of the options.
func (Export) Offered(options []option, v string) bool {
	return slices.ContainsFunc(options, func(o option) bool { return o.Value == v })
}

// optionValues lists the values of the options for a problem: "a, b, c".
func optionValues(options []option) string {
	vs := make([]string, len(options))
	for i, o := range options {
		vs[i] = o.Value
	}
	return strings.Join(vs, ", ")
}

// JoinTitles formats a list of options for a message by their titles (a
// value where there is none): "Jane Smith, John Smith".
func (Export) JoinTitles(options []option) string {
	ts := make([]string, len(options))
	for i, o := range options {
		ts[i] = o.Title
		if ts[i] == "" {
			ts[i] = o.Value
		}
	}
	return strings.Join(ts, ", ")
}

// OfferedOrder returns the distinct values of list that are offered, in the
// order they were offered (values not offered are dropped: the caller has
// reported them). A multi-select answer is made canonical with it, as a
// list of fixed enum values is with SpecOrder.
func (Export) OfferedOrder(list []string, options []option) []string {
	if list == nil {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, o := range options {
		if slices.Contains(list, o.Value) && !slices.Contains(out, o.Value) {
			out = append(out, o.Value)
		}
	}
	return out
}

// Offer is one field of a form whose options are known only at run time.
type Offer struct {
	Field string
	// Multi marks a multi-select (an array whose items are the options).
	Multi   bool
	Options []option
}

// OfferSchema returns a form's requestedSchema with the options of each
// offer filled in, in the order they were offered: a single select gets
// oneOf [{const, title}], a multi-select items {anyOf: [{const, title}]},
// as MCP's titled enums are written. The generated schema leaves those
// keys out; everything else, and the order of the properties (the order
// a client shows the fields in), is kept. The result is what the round
// sends and what the question's digest covers, so an answer given to other
// options is not taken for an answer to these.
func (Export) OfferSchema(schema json.RawMessage, offers ...Offer) json.RawMessage {
	out, err := offerSchema(schema, offers)
	if err != nil {
		// The schema is generated: it always parses. Fail loudly rather
		// than send a form without its choices.
		panic(fmt.Sprintf("mrtrimpl: offering options in a generated schema: %v", err))
	}
	return out
}

func offerSchema(schema json.RawMessage, offers []Offer) (json.RawMessage, error) {
	return editProperties(schema, plainjson.Marshal, func(name string) func(map[string]any) {
		j := slices.IndexFunc(offers, func(o Offer) bool { return o.Field == name })
		if j < 0 {
			return nil
		}
		return func(field map[string]any) {
			choices := make([]any, len(offers[j].Options))
			for n, o := range offers[j].Options {
				title := o.Title
				if title == "" {
					title = o.Value
				}
				choices[n] = map[string]any{"const": o.Value, "title": title}
			}
			if offers[j].Multi {
				field["items"] = map[string]any{"anyOf": choices}
			} else {
				field["oneOf"] = choices
			}
		}
	})
}

// CheckOptions adds the problems of a list of options a handler stored in
// the continuation: an option without a value (it could not be answered),
// and a value offered twice (an answer would not say which was meant).
// The constraints of the spec (lengths, pattern, maxItems) are checked by
// the generated code.
func (Export) CheckOptions(p *Problems, label string, options []option) {
	for i, o := range options {
		if o.Value == "" {
			p.OptionWithoutValue(label, i)
		} else if slices.ContainsFunc(options[:i], func(x option) bool { return x.Value == o.Value }) {
			p.OptionTwice(label, o.Value)
		}
	}
}

// errNotSet is the error of a check or effect that returned without
// setting a continuation value its spec says it sets (errors.Is).
var errNotSet = errors.New("a declared continuation value was not set")

// notSetError names the method, the state, the way it returned and the
// field it did not set: what a developer needs from the log. The round
// fails as a dependency failure instead of rendering an empty value.
type notSetError struct {
	Kind    string // "check" or "effect"
	Method  string // the spec's name of the handler method
	State   string
	Outcome string // the outcome the check returned; "" for next
	Field   string // the spec's name of the continuation field
	GoField string // its name in the generated Continuation struct
}

func (e *notSetError) Error() string {
	how := "returned"
	if e.Outcome != "" {
		how = "returned outcome " + e.Outcome
	}
	return fmt.Sprintf("%s %s (state %s) %s without setting continuation field %s, which the spec says it sets (sets:); set f.Continuation.%s, or correct the spec",
		e.Kind, e.Method, e.State, how, e.Field, e.GoField)
}

func (e *notSetError) Unwrap() error { return errNotSet }

// NotSet is the error of a check or effect that left field unset.
func (Export) NotSet(kind, method, state, outcome, field, goField string) error {
	return &notSetError{Kind: kind, Method: method, State: state, Outcome: outcome, Field: field, GoField: goField}
}

// NoOptions is the error of an ask reached with an empty list of options
// to offer: a form cannot offer no choice. (Lint proves the list is set on
// every path to the ask when its checks declare what they set.)
func (Export) NoOptions(state, field, list string) error {
	return fmt.Errorf("state %s: form field %s offers the options of continuation field %s, which is empty: the check before it must set it (declare it with sets: so lint and the generated code check that)", state, field, list)
}

// OptionTitle is the title of value v among the options offered (v itself
// when it has none or was not offered), for a message.
func (Export) OptionTitle(v string, options []option) string {
	for _, o := range options {
		if o.Value == v && o.Title != "" {
			return o.Title
		}
	}
	return v
}

// OptionTitles writes a list of values chosen among the options offered by
// their titles (OptionTitle), separated by ", ".
func (Export) OptionTitles(vs []string, options []option) string {
	ts := make([]string, len(vs))
	for i, v := range vs {
		ts[i] = X.OptionTitle(v, options)
	}
	return strings.Join(ts, ", ")
}

// TooFewOptions is the error of an ask reached with fewer options than a
// multi-select of its form must pick (minItems): the question could not be
// answered, and asking it would ask again forever. The round fails as a
// dependency failure naming the field, instead.
func (Export) TooFewOptions(state, field, list string, minItems, found int) error {
	return fmt.Errorf("state %s: form field %s must pick at least %d of the options of continuation field %s, which holds %d: the question cannot be answered, so it is not asked (the check before it must find enough options, or route elsewhere when it does not)", state, field, minItems, list, found)
}
