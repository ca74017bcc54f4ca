package binenc

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"unicode/utf8"
)

// Tagged entries are how continuations of envelope version 3 are written,
// so that two builds of a spec read each other's bytes (docs/evolution.md).
// Each carried value is one entry:
//
//	key(4, big-endian) | kind(1) | length(uvarint) | payload(length)
//
// The key is FieldKey of the value's name; the kind its wire Kind. Payloads:
//
//	bool    one byte, 0 or 1
//	int     a zig-zag varint
//	float   8 little-endian bytes of the IEEE 754 bits
//	string  the UTF-8 bytes
//	enum    the value's UTF-8 bytes (by name, never by position)
//	list    item kind(1), then per item: length(uvarint) | item payload
//	group   entries
//
// Absent values are not written. A reader skips entries whose key it does
// not know (a value only the other build has) and leaves values it does not
// find absent: that is what lets a field be added or removed. A known key
// with another kind is a KindError, an enum value the reader's build does
// not have an EnumError: the caller refuses that continuation.

// Kind is the wire kind of a tagged entry.
type Kind uint8

// The wire kinds. Their numbers are part of the format: never reuse one.
const (
	KindBool Kind = iota + 1
	KindInt
	KindFloat
	KindString
	KindEnum
	KindList
	KindGroup
)

var kindNames = [...]string{"", "bool", "int", "float", "string", "enum", "list", "group"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && k > 0 {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// FieldKey is the key of the value called name: its 32-bit FNV-1a hash.
// The generator computes the keys of a spec's names and refuses a spec in
// which two names of one group collide.
func FieldKey(name string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()
}

// KindError reports a value written with another wire kind than the one
// the reader expects (its type changed between the builds).
type KindError struct {
	Name      string
	Want, Got Kind
	// WantItem and GotItem are the item kinds of a list whose items
	// changed kind (zero otherwise).
	WantItem, GotItem Kind
}

func (e *KindError) Error() string {
	if e.WantItem != 0 {
		return fmt.Sprintf("binenc: %s was written as a list of %s; this build reads a list of %s", e.Name, e.GotItem, e.WantItem)
	}
	return fmt.Sprintf("binenc: %s was written as %s; this build reads %s", e.Name, e.Got, e.Want)
}

// EnumError reports an enum value the reader's build does not have.
type EnumError struct {
	Name, Value string
}

func (e *EnumError) Error() string {
	return fmt.Sprintf("binenc: %s holds %q, which is not one of this build's values", e.Name, e.Value)
}

func appendHeader(dst []byte, key uint32, kind Kind, n int) []byte {
	dst = binary.BigEndian.AppendUint32(dst, key)
	dst = append(dst, byte(kind))
	return binary.AppendUvarint(dst, uint64(n))
}

// AppendBoolField appends a bool entry.
func AppendBoolField(dst []byte, key uint32, v bool) []byte {
	return AppendBool(appendHeader(dst, key, KindBool, 1), v)
}

// AppendIntField appends an int entry.
func AppendIntField(dst []byte, key uint32, v int64) []byte {
	var tmp [binary.MaxVarintLen64]byte
	n := binary.PutVarint(tmp[:], v)
	return append(appendHeader(dst, key, KindInt, n), tmp[:n]...)
}

// AppendFloatField appends a float entry.
func AppendFloatField(dst []byte, key uint32, v float64) []byte {
	return AppendFloat(appendHeader(dst, key, KindFloat, 8), v)
}

// AppendStringField appends a string entry.
func AppendStringField(dst []byte, key uint32, v string) []byte {
	return append(appendHeader(dst, key, KindString, len(v)), v...)
}

// AppendEnumField appends an enum entry: the value itself, not its position.
func AppendEnumField[E ~string](dst []byte, key uint32, v E) []byte {
	return append(appendHeader(dst, key, KindEnum, len(v)), v...)
}

// appendList appends a list entry of n items, each written by item in
// place after a reserved length byte (as BeginEntry reserves one), so no
// item is written twice.
func appendList(dst []byte, key uint32, kind Kind, n int, item func(dst []byte, i int) []byte) []byte {
	dst, mark := BeginEntry(dst, key, KindList)
	dst = append(dst, byte(kind))
	for i := range n {
		dst = append(dst, make([]byte, lengthReserve)...)
		at := len(dst)
		dst = EndEntry(item(dst, i), at)
	}
	return EndEntry(dst, mark)
}

// AppendBoolList appends a list of bools.
func AppendBoolList(dst []byte, key uint32, vs []bool) []byte {
	return appendList(dst, key, KindBool, len(vs), func(b []byte, i int) []byte { return AppendBool(b, vs[i]) })
}

// AppendIntList appends a list of ints.
func AppendIntList(dst []byte, key uint32, vs []int64) []byte {
	return appendList(dst, key, KindInt, len(vs), func(b []byte, i int) []byte { return binary.AppendVarint(b, vs[i]) })
}

// AppendFloatList appends a list of floats.
func AppendFloatList(dst []byte, key uint32, vs []float64) []byte {
	return appendList(dst, key, KindFloat, len(vs), func(b []byte, i int) []byte { return AppendFloat(b, vs[i]) })
}

// AppendStringList appends a list of strings.
func AppendStringList(dst []byte, key uint32, vs []string) []byte {
	return appendList(dst, key, KindString, len(vs), func(b []byte, i int) []byte { return append(b, vs[i]...) })
}

// AppendEnumList appends a list of enum values.
func AppendEnumList[E ~string](dst []byte, key uint32, vs []E) []byte {
	return appendList(dst, key, KindEnum, len(vs), func(b []byte, i int) []byte { return append(b, vs[i]...) })
}

// lengthReserve is the room BeginEntry leaves for the length of the
// payload that follows.
const lengthReserve = 1

// BeginEntry starts an entry whose payload is appended next (a group's
// entries, a list's items); EndEntry closes it. mark is where the payload
// begins.
func BeginEntry(dst []byte, key uint32, kind Kind) (b []byte, mark int) {
	dst = binary.BigEndian.AppendUint32(dst, key)
	dst = append(dst, byte(kind))
	// One byte is reserved for the length, enough for a payload under 128
	// bytes (most): EndEntry moves the payload only for longer ones.
	dst = append(dst, make([]byte, lengthReserve)...)
	return dst, len(dst)
}

// EndEntry writes the length of the entry begun at mark.
func EndEntry(b []byte, mark int) []byte {
	n := len(b) - mark
	var tmp [binary.MaxVarintLen64]byte
	w := binary.PutUvarint(tmp[:], uint64(n))
	if w > lengthReserve {
		b = append(b, make([]byte, w-lengthReserve)...)
		copy(b[mark+w-lengthReserve:], b[mark:mark+n])
	}
	copy(b[mark-lengthReserve:], tmp[:w])
	return b
}

// BeginGroup starts a group entry; EndGroup closes it. A group holds
// entries (an answer's form fields).
func BeginGroup(dst []byte, key uint32) (b []byte, mark int) { return BeginEntry(dst, key, KindGroup) }

// EndGroup closes the group begun at mark.
func EndGroup(b []byte, mark int) []byte { return EndEntry(b, mark) }

// EndGroupOmitEmpty closes the group begun at mark, or removes it when it
// holds no entry: an empty group says nothing a reader would not assume.
func EndGroupOmitEmpty(b []byte, mark int) []byte {
	if len(b) == mark {
		return b[:mark-lengthReserve-5]
	}
	return EndEntry(b, mark)
}

// Fields reads tagged entries. Next moves to the following entry; Key says
// which it is, and the typed reads return its value, checking its kind.
// The first error sticks (shared with the groups read from it): Next then
// returns false, reads return zero values, and Err reports it.
type Fields struct {
	b    []byte
	key  uint32
	kind Kind
	val  []byte
	err  *error
}

// NewFields reads the entries of b.
func NewFields(b []byte) *Fields { return &Fields{b: b, err: new(error)} }

func (r *Fields) fail(err error) {
	if *r.err == nil {
		*r.err = err
	}
	r.b, r.val = nil, nil
}

// Err reports the first error of this reader or of a group read from it.
func (r *Fields) Err() error { return *r.err }

// Next moves to the next entry; false at the end or after an error.
func (r *Fields) Next() bool {
	if *r.err != nil || len(r.b) == 0 {
		return false
	}
	if len(r.b) < 5 {
		r.fail(ErrCorrupt)
		return false
	}
	r.key, r.kind = binary.BigEndian.Uint32(r.b), Kind(r.b[4])
	n, w := binary.Uvarint(r.b[5:])
	if w <= 0 || n > uint64(len(r.b)-5-w) {
		r.fail(ErrCorrupt)
		return false
	}
	start := 5 + w
	r.val, r.b = r.b[start:start+int(n)], r.b[start+int(n):]
	return true
}

// Key is the key of the current entry.
func (r *Fields) Key() uint32 { return r.key }

// Kind is the kind of the current entry.
func (r *Fields) Kind() Kind { return r.kind }

// want checks that the current entry has kind k; name names the value in
// the error.
func (r *Fields) want(name string, k Kind) bool {
	if *r.err != nil {
		return false
	}
	if r.kind != k {
		r.fail(&KindError{Name: name, Want: k, Got: r.kind})
		return false
	}
	return true
}

// Bool reads the current entry as a bool.
func (r *Fields) Bool(name string) bool {
	if !r.want(name, KindBool) {
		return false
	}
	v, ok := boolPayload(r.val)
	if !ok {
		r.fail(ErrCorrupt)
	}
	return v
}

// Int reads the current entry as an int.
func (r *Fields) Int(name string) int64 {
	if !r.want(name, KindInt) {
		return 0
	}
	v, ok := intPayload(r.val)
	if !ok {
		r.fail(ErrCorrupt)
	}
	return v
}

// Float reads the current entry as a float.
func (r *Fields) Float(name string) float64 {
	if !r.want(name, KindFloat) {
		return 0
	}
	v, ok := floatPayload(r.val)
	if !ok {
		r.fail(ErrCorrupt)
	}
	return v
}

// String reads the current entry as a string.
func (r *Fields) String(name string) string {
	if !r.want(name, KindString) {
		return ""
	}
	if !utf8.Valid(r.val) {
		r.fail(ErrCorrupt)
		return ""
	}
	return string(r.val)
}

// EnumField reads the current entry of r as an enum value, which must be
// one of values.
func EnumField[E ~string](r *Fields, name string, values []E) E {
	if !r.want(name, KindEnum) {
		return ""
	}
	return enumValue(r, name, r.val, values)
}

func enumValue[E ~string](r *Fields, name string, b []byte, values []E) E {
	for _, v := range values {
		if string(v) == string(b) {
			return v
		}
	}
	if !utf8.Valid(b) {
		r.fail(ErrCorrupt)
	} else {
		r.fail(&EnumError{Name: name, Value: string(b)})
	}
	return ""
}

// Group reads the current entry as a group: the returned reader (a value,
// so reading a group allocates nothing) reads its entries and reports its
// errors to r.
func (r *Fields) Group(name string) Fields {
	if !r.want(name, KindGroup) {
		return Fields{err: r.err}
	}
	return Fields{b: r.val, err: r.err}
}

// listLen checks that the current entry is a list of kind k and counts
// its items (0 after an error).
func (r *Fields) listLen(name string, k Kind) int {
	if !r.want(name, KindList) {
		return 0
	}
	if len(r.val) == 0 {
		r.fail(ErrCorrupt)
		return 0
	}
	if got := Kind(r.val[0]); got != k {
		r.fail(&KindError{Name: name, Want: KindList, Got: KindList, WantItem: k, GotItem: got})
		return 0
	}
	n := 0
	for rest := r.val[1:]; len(rest) > 0; n++ {
		l, w := binary.Uvarint(rest)
		if w <= 0 || l > uint64(len(rest)-w) {
			r.fail(ErrCorrupt)
			return 0
		}
		rest = rest[w+int(l):]
	}
	return n
}

// list reads the current entry, a list of kind k, making each item's
// payload a T with item (false: the payload is corrupt). The result is
// allocated once; it is nil for an empty list and after an error.
func list[T any](r *Fields, name string, k Kind, item func([]byte) (T, bool)) []T {
	n := r.listLen(name, k)
	if n == 0 {
		return nil
	}
	out := make([]T, 0, n)
	for rest := r.val[1:]; len(rest) > 0 && *r.err == nil; {
		l, w := binary.Uvarint(rest) // listLen checked the lengths
		v, ok := item(rest[w : w+int(l)])
		if !ok {
			r.fail(ErrCorrupt)
		}
		out, rest = append(out, v), rest[w+int(l):]
	}
	if *r.err != nil {
		return nil
	}
	return out
}

// Bools reads the current entry as a list of bools.
func (r *Fields) Bools(name string) []bool { return list(r, name, KindBool, boolPayload) }

// Ints reads the current entry as a list of ints.
func (r *Fields) Ints(name string) []int64 { return list(r, name, KindInt, intPayload) }

// Floats reads the current entry as a list of floats.
func (r *Fields) Floats(name string) []float64 { return list(r, name, KindFloat, floatPayload) }

// Strings reads the current entry as a list of strings.
func (r *Fields) Strings(name string) []string { return list(r, name, KindString, stringPayload) }

// EnumList reads the current entry of r as a list of enum values, each of
// which must be one of values.
func EnumList[E ~string](r *Fields, name string, values []E) []E {
	return list(r, name, KindEnum, func(b []byte) (E, bool) {
		return enumValue(r, name, b, values), true // enumValue fails r itself
	})
}

func stringPayload(b []byte) (string, bool) { return string(b), utf8.Valid(b) }

func boolPayload(b []byte) (bool, bool) {
	if len(b) != 1 || b[0] > 1 {
		return false, false
	}
	return b[0] == 1, true
}

func intPayload(b []byte) (int64, bool) {
	v, n := binary.Varint(b)
	if n <= 0 || n != len(b) {
		return 0, false
	}
	return v, true
}

func floatPayload(b []byte) (float64, bool) {
	if len(b) != 8 {
		return 0, false
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), true
}
