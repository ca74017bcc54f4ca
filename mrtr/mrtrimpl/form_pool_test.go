package mrtrimpl

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// freshDecodeObject is DecodeObject as it was before decoders were pooled:
// a new json.Decoder for every call.
func freshDecodeObject(raw []byte) (map[string]any, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, false
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, true
}

// FuzzDecodeObjectPooled decodes inputs one after the other with the pooled
// decoders and each with a fresh one: the results must be the same, so
// that nothing of one call's input (bytes read ahead, an error) reaches the
// next call.
func FuzzDecodeObjectPooled(f *testing.F) {
	for _, seed := range []string{
		`{"ticketId":"12345"}`, `{"a":1.50,"b":[1,2,{"c":null}]}`, `null`, `[1,2]`, `{"a":1} {"b":2}`,
		`{"a":1} x`, `  {"a":"\u00e9"}  `, `{"a":`, `{}`, `"s"`, `{"a":1}{`, "\t{\"n\":-0.0e+5}\n",
	} {
		f.Add([]byte(seed), []byte(`{"next":"call","n":12345678901234567890}`))
	}
	f.Fuzz(func(t *testing.T, first, second []byte) {
		for _, in := range [][]byte{first, second, first, second} {
			got, err := X.DecodeObject(in)
			want, ok := freshDecodeObject(in)
			if (err == nil) != ok {
				t.Fatalf("X.DecodeObject(%q): error %v, fresh decoder ok %v", in, err, ok)
			}
			if ok && !reflect.DeepEqual(got, want) {
				t.Fatalf("X.DecodeObject(%q) = %#v, fresh decoder %#v", in, got, want)
			}
		}
	})
}
