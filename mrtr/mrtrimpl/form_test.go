package mrtrimpl

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestAsIntBounds(t *testing.T) {
	for _, c := range []struct {
		in   any
		want Presence
	}{
		{float64(1 << 62), Present},
		{0x1p63, WrongType}, // 2^63 does not fit an int64
		{-0x1p63, Present},  // -2^63 does
		{1.5, WrongType},
		{json.Number("9223372036854775807"), Present},
		{json.Number("9223372036854775808"), WrongType},
		{"1", WrongType},
	} {
		if _, got := X.AsInt(c.in); got != c.want {
			t.Errorf("X.AsInt(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestSpecOrder(t *testing.T) {
	order := []string{"billing", "checkout", "search"}
	for _, in := range [][]string{{"billing", "checkout"}, {"checkout", "billing"}, {"billing", "checkout", "billing"}} {
		if got := SpecOrder(in, order); !slices.Equal(got, []string{"billing", "checkout"}) {
			t.Errorf("SpecOrder(%q) = %q", in, got)
		}
	}
	if got := SpecOrder([]string{}, order); got == nil || len(got) != 0 {
		t.Errorf("an empty list stays an empty list, got %#v", got)
	}
	if got := SpecOrder(nil, order); got != nil {
		t.Errorf("no list stays no list, got %#v", got)
	}
	if got := Repeated([]string{"a", "b", "a", "c", "b", "a"}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Repeated = %q", got)
	}
	if got := Repeated([]string{"a", "b"}); got != nil {
		t.Errorf("Repeated of distinct values = %q", got)
	}
}
