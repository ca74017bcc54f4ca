package mrtrimpl

import (
	"bytes"
	"encoding/json"
	"reflect"
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
		if _, got := AsInt(c.in); got != c.want {
			t.Errorf("AsInt(%v) = %v, want %v", c.in, got, c.want)
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

// decodeWithDecoder is DecodeObject without its fast path.
func decodeWithDecoder(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// FuzzDecodeObject: DecodeObject (segmentio's decoder for small objects)
// accepts exactly what a json.Decoder accepts and yields the same values.
func FuzzDecodeObject(f *testing.F) {
	for _, s := range []string{
		`{"ticketId":"12345"}`, `{"a":1,"a":2}`, `{"n":1e400,"m":-0.0,"i":12345678901234567890}`,
		`{"s":"\ud800 \u00e9 <&> \"q\""}`, "{\"bad\":\"\xff\xfe\"}", `{"x":{"y":[1,{"z":null}]}}`,
		`{} trailing`, `{}{}`, `[1]`, `null`, `"s"`, `{"a":}`, ` {"a" : true } `, `{"A":1,"a":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(bytes.TrimSpace(raw)) == 0 {
			return
		}
		want, werr := decodeWithDecoder(raw)
		if werr == nil && want == nil {
			want = map[string]any{} // null: no arguments
		}
		got, gerr := DecodeObject(raw)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%q: DecodeObject err %v, json.Decoder %v", raw, gerr, werr)
		}
		if gerr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: DecodeObject %#v, json.Decoder %#v", raw, got, want)
		}
	})
}

// TestDecodeSmallObjectTakesArguments: the usual arguments take the fast
// path (else FuzzDecodeObject would compare the Decoder with itself).
func TestDecodeSmallObjectTakesArguments(t *testing.T) {
	if m, ok := decodeSmallObject(json.RawMessage(`{"ticketId":"12345","n":3}`)); !ok || m["n"] != json.Number("3") {
		t.Fatalf("decodeSmallObject = %#v, %v; want the object with n a json.Number", m, ok)
	}
	for _, raw := range []string{`{} trailing`, `null`, `[1]`, `{"a":1`} {
		if _, ok := decodeSmallObject(json.RawMessage(raw)); ok {
			t.Errorf("decodeSmallObject(%s) took the fast path; want the json.Decoder", raw)
		}
	}
}
