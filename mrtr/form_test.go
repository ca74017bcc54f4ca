package mrtr

import (
	"encoding/json"
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
		if _, got := AsInt(c.in); got != c.want {
			t.Errorf("AsInt(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
