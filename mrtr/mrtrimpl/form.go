package mrtrimpl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/failure"
	"github.com/mrtrgen/mrtrgen/mrtr/problem"
)

// Presence says what a lookup found.
type Presence uint8

// DecodeObject parses call arguments: a JSON object (numbers kept exact).
func (Export) DecodeObject(raw json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, nil
	}
	d := objectDecoders.Get().(*objectDecoder)
	m, err := d.decode(raw)
	if err != nil {
		return nil, &failure.ArgumentError{Problems: []string{problem.NotAnObject}}
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// objectDecoder is a json.Decoder (UseNumber) kept for the next call's
// arguments: a new Decoder and its read buffer were most of the bytes a
// round allocated to read its arguments. It reads from src, which each
// call points at its own input.
type objectDecoder struct {
	src bytes.Reader
	dec *json.Decoder
}

var objectDecoders = sync.Pool{New: func() any {
	d := &objectDecoder{}
	d.dec = json.NewDecoder(&d.src)
	d.dec.UseNumber()
	return d
}}

// maxPooledInput bounds the inputs whose decoder goes back to the pool (its
// buffer grows to the largest input it read; a rare large one is let go).
const maxPooledInput = 16 << 10

// decode reads the first JSON value of raw, as json.NewDecoder(raw).Decode
// with UseNumber would. The decoder goes back to the pool only when it
// holds nothing of raw: no error (a json.Decoder keeps its error) and every
// byte of raw scanned (none read ahead and left in its buffer, which the
// next input would be read after).
func (d *objectDecoder) decode(raw json.RawMessage) (map[string]any, error) {
	d.src.Reset(raw)
	start := d.dec.InputOffset()
	var m map[string]any
	err := d.dec.Decode(&m)
	if err == nil && d.dec.InputOffset()-start == int64(len(raw)) && d.src.Len() == 0 && len(raw) <= maxPooledInput {
		d.src.Reset(nil)
		objectDecoders.Put(d)
	}
	return m, err
}

func lookup(m map[string]any, key string) (any, bool) {
	v, ok := m[key]
	return v, ok && v != nil
}

// FormString reads a string.
func (Export) FormString(m map[string]any, key string) (string, Presence) {
	v, ok := lookup(m, key)
	if !ok {
		return "", Absent
	}
	return X.AsString(v)
}

// FormInt reads an integer (a JSON number without a fractional part).
func (Export) FormInt(m map[string]any, key string) (int64, Presence) {
	v, ok := lookup(m, key)
	if !ok {
		return 0, Absent
	}
	return X.AsInt(v)
}

// FormFloat reads a number.
func (Export) FormFloat(m map[string]any, key string) (float64, Presence) {
	v, ok := lookup(m, key)
	if !ok {
		return 0, Absent
	}
	return X.AsFloat(v)
}

// FormBool reads a boolean.
func (Export) FormBool(m map[string]any, key string) (bool, Presence) {
	v, ok := lookup(m, key)
	if !ok {
		return false, Absent
	}
	return X.AsBool(v)
}

// FormList reads an array; the items are read with the As methods.
func (Export) FormList(m map[string]any, key string) ([]any, Presence) {
	v, ok := lookup(m, key)
	if !ok {
		return nil, Absent
	}
	l, ok := v.([]any)
	if !ok {
		return nil, WrongType
	}
	return l, Present
}

// AsString reads a string value.
func (Export) AsString(v any) (string, Presence) {
	s, ok := v.(string)
	if !ok {
		return "", WrongType
	}
	return s, Present
}

// AsInt reads an integral number. Besides JSON numbers it takes Go
// integers, for answers built in tests.
func (Export) AsInt(v any) (int64, Presence) {
	switch n := v.(type) {
	case int:
		return int64(n), Present
	case int64:
		return n, Present
	case json.Number:
		i, err := n.Int64()
		if err != nil {
			return 0, WrongType
		}
		return i, Present
	case float64:
		// 2^63 itself is a float64 but not an int64: the bounds are exact.
		if n != math.Trunc(n) || n < -0x1p63 || n >= 0x1p63 {
			return 0, WrongType
		}
		return int64(n), Present
	}
	return 0, WrongType
}

// AsFloat reads a finite number.
func (Export) AsFloat(v any) (float64, Presence) {
	switch n := v.(type) {
	case int:
		return float64(n), Present
	case int64:
		return float64(n), Present
	case json.Number:
		f, err := n.Float64()
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, WrongType
		}
		return f, Present
	case float64:
		return n, Present
	}
	return 0, WrongType
}

// AsBool reads a boolean.
func (Export) AsBool(v any) (bool, Presence) {
	b, ok := v.(bool)
	if !ok {
		return false, WrongType
	}
	return b, Present
}

// Join formats a list for a message: "a, b, c".
func Join[T any](vs []T) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ", ")
}

// WithProblems appends validation problems to a question, so the user sees
// what to correct when it is asked again.
func (Export) WithProblems(message string, problems Problems) string {
	return problem.Correct(message, problems)
}

// SpecOrder returns the distinct values of list in the order of order (an
// enum's values in spec order), dropping values order does not have (the
// caller has reported them). Generated code canonicalises every list of
// enum values with it before anything reads the list, so [b, a, b] and
// [a, b] are one answer: the same templates, operation ids, argument
// digest and continuation encoding.
func SpecOrder[T comparable](list, order []T) []T {
	if list == nil {
		return nil
	}
	out := make([]T, 0, len(list))
	for _, v := range order {
		if slices.Contains(list, v) {
			out = append(out, v)
		}
	}
	return out
}

// Repeated returns the values that occur more than once in list, each
// once, in the order they first repeat (nil when all are distinct): the
// problem of a list whose spec sets uniqueItems.
func Repeated[T comparable](list []T) []T {
	var out []T
	for i, v := range list {
		if slices.Contains(list[:i], v) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

const (
	// Absent: the key is missing or null.
	Absent Presence = iota
	// Present: the value has the expected type.
	Present
	// WrongType: the value has another type.
	WrongType
)
