// Package jsonform converts a value between the Go type a spec binds it to
// (goType: github.com/google/uuid.UUID) and the Go form of its JSON type
// (string, int64, float64 or bool), which is what generated code validates,
// renders and carries in the continuation.
//
// Both ways go through encoding/json, so the value is what the type's own
// MarshalJSON or MarshalText (or its underlying kind) says it is in JSON:
// the form a client sends and reads. A type whose JSON is not of the
// declared type (a decimal marshalled as a quoted string where the spec
// says number) is an error here, never a silently different value.
package jsonform

import (
	"encoding/json"
	"fmt"

	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
)

// Wire is the Go form of a JSON type.
type Wire interface {
	~string | ~int64 | ~float64 | ~bool
}

// To returns the JSON form of v as W. It marshals &v, so a MarshalJSON or
// MarshalText declared on *T is used too.
func To[W Wire, T any](v T) (W, error) {
	var w W
	b, err := json.Marshal(&v)
	if err != nil {
		return w, fmt.Errorf("%T does not marshal: %w", v, err)
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return w, fmt.Errorf("%T marshals to %s, not %s", v, b, jsonType(w))
	}
	return w, nil
}

// From returns the T whose JSON form is w: its UnmarshalJSON or
// UnmarshalText (or its underlying kind) reads the JSON of w.
func From[T any, W Wire](w W) (T, error) {
	var v T
	b, err := json.Marshal(w)
	if err != nil {
		return v, err // a NaN or an infinity, which no JSON number is
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return v, fmt.Errorf("%s is not a %T: %w", b, v, unwrapSyntax(err))
	}
	return v, nil
}

// Value is the JSON form of v, or W's zero value when v has none. Generated
// code calls it where the value was taken from its JSON form (an argument,
// an answer) or was checked with To before (CheckContinuation refuses a
// continuation value that does not convert, before anything is sealed or
// rendered).
func Value[W Wire, T any](v T) W {
	w, _ := To[W](v)
	return w
}

// Read is From for a value read from a continuation: a value that does not
// convert fails r (the continuation is refused) and reads as T's zero value.
func Read[T any, W Wire](r *binenc.Fields, name string, w W) T {
	v, err := From[T](w)
	if err != nil {
		r.Fail(fmt.Errorf("%s: %w", name, err))
	}
	return v
}

// Must is From for the fixtures of generated tests: an example that does not
// convert panics, naming the value and the type.
func Must[T any, W Wire](w W) T {
	v, err := From[T](w)
	if err != nil {
		panic(fmt.Sprintf("jsonform: example %v: %v", w, err))
	}
	return v
}

// jsonType names the JSON type of W, for errors.
func jsonType[W Wire](w W) string {
	switch any(w).(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", w)
}

// unwrapSyntax keeps the type's own error: json wraps it with the offset.
func unwrapSyntax(err error) error {
	if e, ok := err.(*json.UnmarshalTypeError); ok {
		return fmt.Errorf("JSON %s does not decode into %s", e.Value, e.Type)
	}
	return err
}

// ReadV2 is Read for the positional continuation of envelope versions 1
// and 2: a value that does not convert makes r's data corrupt.
func ReadV2[T any, W Wire](r *binenc.Reader, w W) T {
	v, err := From[T](w)
	if err != nil {
		r.Fail()
	}
	return v
}
