// Package binenc is the compact binary encoding of continuations: no
// reflection, no JSON. It has two layouts.
//
// Tagged entries (tagged.go, envelope version 3 and later): each value is
// written with a key (a hash of its name), its wire kind and its length,
// so a build reads what another build of the spec wrote, skipping what it
// does not know and leaving absent what it does not find. Generated
// AppendContinuation and LoadContinuation use them; docs/evolution.md says
// which spec changes that tolerates.
//
// Positional values (this file, envelope versions 1 and 2): the fields of
// a continuation in a fixed order with the Append functions, read back in
// the same order with a Reader; a schema hash sealed next to the bytes
// guarantees both sides agree on that order. Tokens of those versions keep
// opening on a build of the same spec (generated LoadContinuationV2).
//
// Encodings: unsigned integers as uvarints, signed integers as zig-zag
// varints, floats as 8 little-endian bytes, booleans as one byte (0 or 1),
// strings as a uvarint length and the bytes.
package binenc

import (
	"encoding/binary"
	"errors"
	"math"
	"unicode/utf8"
)

// ErrCorrupt reports bytes that do not decode: truncated, overlong, with
// trailing data, or a string that is not UTF-8.
var ErrCorrupt = errors.New("binenc: corrupt continuation data")

// AppendUvarint appends v as an unsigned varint.
func AppendUvarint(dst []byte, v uint64) []byte { return binary.AppendUvarint(dst, v) }

// AppendInt appends v as a zig-zag varint.
func AppendInt(dst []byte, v int64) []byte { return binary.AppendVarint(dst, v) }

// AppendFloat appends v as 8 little-endian bytes of its IEEE 754 bits.
func AppendFloat(dst []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
}

// AppendBool appends 1 for true and 0 for false.
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// AppendString appends a length-prefixed string.
func AppendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// AppendBytes appends a length-prefixed byte string.
func AppendBytes(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

// Reader decodes values in the order they were appended. The first error
// sticks: later reads return zero values, and Err or Done reports it, so
// generated code checks once at the end.
type Reader struct {
	b   []byte
	err error
}

// NewReader reads from b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

func (r *Reader) fail() { r.err, r.b = ErrCorrupt, nil }

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Int reads a zig-zag varint.
func (r *Reader) Int() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Float reads 8 little-endian bytes.
func (r *Reader) Float() float64 {
	if r.err != nil || len(r.b) < 8 {
		r.fail()
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}

// Bool reads one byte that must be 0 or 1.
func (r *Reader) Bool() bool {
	if r.err != nil || len(r.b) < 1 || r.b[0] > 1 {
		r.fail()
		return false
	}
	v := r.b[0] == 1
	r.b = r.b[1:]
	return v
}

// Bytes reads a length-prefixed byte string (a copy).
func (r *Reader) Bytes() []byte {
	n := r.Uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	v := append([]byte(nil), r.b[:n]...)
	r.b = r.b[n:]
	return v
}

// View reads a length-prefixed byte string without copying it: the result
// aliases the reader's bytes (compare it, do not keep it).
func (r *Reader) View() []byte {
	n := r.Uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

// Uint64 reads 8 big-endian bytes (a digest).
func (r *Reader) Uint64() uint64 {
	if r.err != nil || len(r.b) < 8 {
		r.fail()
		return 0
	}
	v := binary.BigEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

// String reads a length-prefixed UTF-8 string.
func (r *Reader) String() string {
	n := r.Uvarint()
	if r.err != nil || n > uint64(len(r.b)) || !utf8.Valid(r.b[:n]) {
		r.fail()
		return ""
	}
	v := string(r.b[:n])
	r.b = r.b[n:]
	return v
}

// Count reads an element count, refusing counts that cannot fit in the
// remaining bytes (each element takes at least one byte), so a corrupt
// count cannot make the caller allocate a huge slice.
func (r *Reader) Count() int {
	n := r.Uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.fail()
		return 0
	}
	return int(n)
}

// Rest returns the bytes not read yet (nil after an error).
func (r *Reader) Rest() []byte { return r.b }

// Err reports the first decoding error.
func (r *Reader) Err() error { return r.err }

// Done reports the first decoding error, or ErrCorrupt when bytes are left
// over: a continuation must be consumed exactly.
func (r *Reader) Done() error {
	if r.err == nil && len(r.b) != 0 {
		r.fail()
	}
	return r.err
}

// AppendEnum appends v as its 1-based position in values, 0 when v is not
// one of them (the zero value of an unset field).
func AppendEnum[E comparable](dst []byte, values []E, v E) []byte {
	for i, x := range values {
		if x == v {
			return AppendUvarint(dst, uint64(i+1))
		}
	}
	return AppendUvarint(dst, 0)
}

// ReadEnum reads a value written by AppendEnum.
func ReadEnum[E any](r *Reader, values []E) E {
	var zero E
	i := r.Uvarint()
	if r.err != nil {
		return zero
	}
	if i > uint64(len(values)) {
		r.fail()
		return zero
	}
	if i == 0 {
		return zero
	}
	return values[i-1]
}
