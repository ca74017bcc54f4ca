package binenc

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	values := []string{"a", "b", "c"}
	var b []byte
	b = AppendUvarint(b, 1<<40)
	b = AppendInt(b, math.MinInt64)
	b = AppendInt(b, -1)
	b = AppendFloat(b, -0.5)
	b = AppendBool(b, true)
	b = AppendBool(b, false)
	b = AppendString(b, "héllo")
	b = AppendBytes(b, []byte{0, 1, 2})
	b = AppendEnum(b, values, "c")
	b = AppendEnum(b, values, "") // unset
	b = AppendUvarint(b, 2)       // a count

	r := NewReader(b)
	if got := r.Uvarint(); got != 1<<40 {
		t.Fatalf("uvarint %d", got)
	}
	if got := r.Int(); got != math.MinInt64 {
		t.Fatalf("int %d", got)
	}
	if got := r.Int(); got != -1 {
		t.Fatalf("int %d", got)
	}
	if got := r.Float(); got != -0.5 {
		t.Fatalf("float %v", got)
	}
	if !r.Bool() || r.Bool() {
		t.Fatal("bools")
	}
	if got := r.String(); got != "héllo" {
		t.Fatalf("string %q", got)
	}
	if got := r.Bytes(); !bytes.Equal(got, []byte{0, 1, 2}) {
		t.Fatalf("bytes %v", got)
	}
	if got := ReadEnum(r, values); got != "c" {
		t.Fatalf("enum %q", got)
	}
	if got := ReadEnum(r, values); got != "" {
		t.Fatalf("unset enum %q", got)
	}
	// A count can never exceed the bytes left: here one element would not
	// fit, so the count of 2 with nothing after it is corrupt.
	if got := r.Count(); got != 0 || !errors.Is(r.Err(), ErrCorrupt) {
		t.Fatalf("count %d err %v", got, r.Err())
	}
}

// Every corruption is reported, never a panic, and the first error sticks.
func TestCorrupt(t *testing.T) {
	cases := map[string]func(*Reader){
		"truncated uvarint": func(r *Reader) { r.Uvarint() },
		"truncated float":   func(r *Reader) { r.Float() },
		"bool not 0 or 1":   func(r *Reader) { r.Bool() },
		"string too long":   func(r *Reader) { _ = r.String() },
		"invalid utf-8":     func(r *Reader) { _ = r.String() },
		"enum out of range": func(r *Reader) { ReadEnum(r, []string{"x"}) },
	}
	inputs := map[string][]byte{
		"truncated uvarint": {0x80},
		"truncated float":   {1, 2, 3},
		"bool not 0 or 1":   {2},
		"string too long":   {5, 'a'},
		"invalid utf-8":     {2, 0xff, 0xfe},
		"enum out of range": {2},
	}
	for name, read := range cases {
		r := NewReader(inputs[name])
		read(r)
		if !errors.Is(r.Err(), ErrCorrupt) {
			t.Errorf("%s: err %v", name, r.Err())
		}
		if r.String() != "" || r.Int() != 0 {
			t.Errorf("%s: reads after an error must return zero values", name)
		}
	}
	// Leftover bytes are corrupt too: a continuation is read exactly.
	r := NewReader([]byte{1, 0})
	r.Bool()
	if !errors.Is(r.Done(), ErrCorrupt) {
		t.Fatal("trailing bytes accepted")
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte{3, 'a', 'b', 'c', 1, 0x80, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewReader(b)
		for i := 0; i < 8 && r.Err() == nil; i++ {
			switch i % 4 {
			case 0:
				_ = r.String()
			case 1:
				n := r.Count()
				if n > len(b) {
					t.Fatalf("count %d over %d bytes", n, len(b))
				}
			case 2:
				r.Int()
			case 3:
				r.Bool()
			}
		}
		_ = r.Done()
	})
}
