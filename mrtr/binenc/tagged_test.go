package binenc

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

type color string

var colors = []color{"red", "green", "blue"}

var (
	kBool   = FieldKey("flag")
	kInt    = FieldKey("count")
	kFloat  = FieldKey("ratio")
	kString = FieldKey("note")
	kEnum   = FieldKey("color")
	kList   = FieldKey("tags")
	kGroup  = FieldKey("answer")
)

// sample writes one value of every kind, the group holding a nested list.
func sample() []byte {
	var b []byte
	b = AppendBoolField(b, kBool, true)
	b = AppendIntField(b, kInt, math.MinInt64)
	b = AppendFloatField(b, kFloat, -0.25)
	b = AppendStringField(b, kString, "héllo")
	b = AppendEnumField(b, kEnum, color("blue"))
	b = AppendStringList(b, kList, []string{"a", "", "ccc"})
	b, g := BeginGroup(b, kGroup)
	b = AppendIntList(b, kInt, []int64{1, -2, 1 << 40})
	b = AppendEnumList(b, kEnum, []color{"red", "blue"})
	b = AppendBoolList(b, kBool, []bool{true, false})
	b = AppendFloatList(b, kFloat, []float64{0.5})
	return EndGroup(b, g)
}

type sampleValues struct {
	flag   bool
	count  int64
	ratio  float64
	note   string
	color  color
	tags   []string
	ints   []int64
	colors []color
	bools  []bool
	floats []float64
}

func readSample(b []byte) (sampleValues, error) {
	var v sampleValues
	r := NewFields(b)
	for r.Next() {
		switch r.Key() {
		case kBool:
			v.flag = r.Bool("flag")
		case kInt:
			v.count = r.Int("count")
		case kFloat:
			v.ratio = r.Float("ratio")
		case kString:
			v.note = r.String("note")
		case kEnum:
			v.color = EnumField(r, "color", colors)
		case kList:
			v.tags = r.Strings("tags")
		case kGroup:
			g := r.Group("answer")
			for g.Next() {
				switch g.Key() {
				case kInt:
					v.ints = g.Ints("answer.count")
				case kEnum:
					v.colors = EnumList(&g, "answer.color", colors)
				case kBool:
					v.bools = g.Bools("answer.flag")
				case kFloat:
					v.floats = g.Floats("answer.ratio")
				}
			}
		}
	}
	return v, r.Err()
}

func TestTaggedRoundTrip(t *testing.T) {
	got, err := readSample(sample())
	if err != nil {
		t.Fatal(err)
	}
	want := sampleValues{flag: true, count: math.MinInt64, ratio: -0.25, note: "héllo", color: "blue",
		tags: []string{"a", "", "ccc"}, ints: []int64{1, -2, 1 << 40}, colors: []color{"red", "blue"},
		bools: []bool{true, false}, floats: []float64{0.5}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back\n%+v\nwant\n%+v", got, want)
	}
}

// What one build writes and the other does not know is skipped, wherever
// it is and whatever its kind; what is not there stays absent.
func TestTaggedUnknownAndAbsent(t *testing.T) {
	var b []byte
	b = AppendStringField(b, FieldKey("added later"), "only the new build knows")
	b = AppendIntField(b, kInt, 7)
	b, g := BeginGroup(b, FieldKey("another group"))
	b = AppendBoolField(b, kBool, true) // a known key, but inside an unknown group
	b = EndGroup(b, g)
	b = append(appendHeader(b, FieldKey("a future kind"), Kind(42), 3), 1, 2, 3)
	got, err := readSample(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sampleValues{count: 7}) {
		t.Fatalf("got %+v, want only count 7", got)
	}
	if got, err := readSample(nil); err != nil || !reflect.DeepEqual(got, sampleValues{}) {
		t.Fatalf("empty: %+v %v", got, err)
	}
}

func TestTaggedKindMismatch(t *testing.T) {
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"scalar", AppendStringField(nil, kInt, "7"), "count was written as string; this build reads int"},
		{"group", AppendIntField(nil, kGroup, 1), "answer was written as int; this build reads group"},
		{"list", AppendIntField(nil, kList, 1), "tags was written as int; this build reads list"},
		{"list items", AppendIntList(nil, kList, []int64{1}), "tags was written as a list of int; this build reads a list of string"},
		{"in a group", func() []byte {
			b, g := BeginGroup(nil, kGroup)
			return EndGroup(AppendStringList(b, kInt, []string{"x"}), g)
		}(), "answer.count was written as a list of string; this build reads a list of int"},
	} {
		_, err := readSample(c.b)
		var ke *KindError
		if !errors.As(err, &ke) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a KindError %q", c.name, err, c.want)
		}
	}
}

func TestTaggedEnumValueUnknown(t *testing.T) {
	var ee *EnumError
	_, err := readSample(AppendEnumField(nil, kEnum, color("purple")))
	if !errors.As(err, &ee) || ee.Name != "color" || ee.Value != "purple" {
		t.Fatalf("scalar: %v", err)
	}
	b, g := BeginGroup(nil, kGroup)
	b = EndGroup(AppendEnumList(b, kEnum, []color{"red", "purple"}), g)
	if _, err := readSample(b); !errors.As(err, &ee) || ee.Name != "answer.color" || ee.Value != "purple" {
		t.Fatalf("list: %v", err)
	}
}

// A prefix that ends inside an entry is corrupt; one that ends between
// top-level entries reads fewer of them. Never a panic.
func TestTaggedTruncation(t *testing.T) {
	full := sample()
	boundaries := map[int]bool{0: true}
	r := NewFields(full)
	for r.Next() {
		boundaries[len(full)-len(r.b)] = true
	}
	for n := range len(full) {
		_, err := readSample(full[:n])
		if boundaries[n] && err != nil {
			t.Errorf("prefix %d ends between entries, yet: %v", n, err)
		}
		if !boundaries[n] && !errors.Is(err, ErrCorrupt) {
			t.Errorf("prefix %d of %d ends inside an entry, yet: %v", n, len(full), err)
		}
	}
}

func TestTaggedCorruptPayloads(t *testing.T) {
	for name, b := range map[string][]byte{
		"bool 2":        append(appendHeader(nil, kBool, KindBool, 1), 2),
		"bool long":     append(appendHeader(nil, kBool, KindBool, 2), 1, 0),
		"int trailing":  append(appendHeader(nil, kInt, KindInt, 2), 2, 0),
		"float short":   append(appendHeader(nil, kFloat, KindFloat, 4), 0, 0, 0, 0),
		"string utf8":   append(appendHeader(nil, kString, KindString, 1), 0xff),
		"enum utf8":     append(appendHeader(nil, kEnum, KindEnum, 1), 0xff),
		"list empty":    appendHeader(nil, kList, KindList, 0),
		"list item len": append(appendHeader(nil, kList, KindList, 3), byte(KindString), 5, 'a'),
		"length":        append(appendHeader(nil, kString, KindString, 9), 'a'),
		"header":        {0, 1, 2},
	} {
		if _, err := readSample(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

// EndEntry moves the payload of an entry longer than the byte it reserved.
func TestTaggedLongGroups(t *testing.T) {
	for _, n := range []int{0, 1, 126, 127, 128, 300, 20000} {
		note := strings.Repeat("x", n)
		b, g := BeginGroup([]byte{0xAA}, kGroup)
		b = AppendStringField(b, kString, note)
		b = EndGroup(b, g)
		r := NewFields(b[1:])
		if !r.Next() || r.Key() != kGroup {
			t.Fatalf("%d: no group: %v", n, r.Err())
		}
		in := r.Group("answer")
		if !in.Next() || in.String("note") != note || in.Next() || r.Next() || r.Err() != nil {
			t.Fatalf("%d: group of a %d-byte string misread: %v", n, n, r.Err())
		}
	}
}

// Keys are part of the format: the keys generated code holds (these from
// examples/generated/deployments) stay what they were.
func TestFieldKeysPinned(t *testing.T) {
	for name, want := range map[string]uint32{"service": 0x56dfde64, "version": 0x4671ae97, "continuation": 0x5ec2d352, "answers": 0x41a869c4, "": 0x811c9dc5} {
		if got := FieldKey(name); got != want {
			t.Errorf("FieldKey(%q) = %#x, want %#x", name, got, want)
		}
	}
}

// A list's items are written in place: the bytes are the format's (key,
// kind, length, item kind, then per item its length and payload) for items
// on either side of the one-byte length, and writing into a buffer with
// room allocates nothing.
func TestTaggedListInPlace(t *testing.T) {
	items := []string{""}
	for _, n := range []int{1, 127, 128, 300, 20000} {
		items = append(items, strings.Repeat("y", n))
	}
	var payload []byte
	payload = append(payload, byte(KindString))
	for _, s := range items {
		payload = AppendString(payload, s)
	}
	want := AppendBytes(appendHeader(nil, kList, KindList, 0)[:5], payload)
	if got := AppendStringList(nil, kList, items); !bytes.Equal(got, want) {
		t.Fatalf("list bytes differ from the format: %d bytes, want %d", len(got), len(want))
	}
	buf := make([]byte, 0, 64)
	short := []string{"a", "bb", "ccc"}
	if n := testing.AllocsPerRun(100, func() { buf = AppendStringList(buf[:0], kList, short) }); n != 0 {
		t.Fatalf("AppendStringList into a buffer with room: %v allocations", n)
	}
}

// A list is read into a slice allocated once, of its length: a list of n
// ints costs one allocation, n strings n+1; an empty list reads as nil.
func TestTaggedListReadAllocatesOnce(t *testing.T) {
	ints := AppendIntList(nil, kList, []int64{1, -2, 3, 4, 5})
	strs := AppendStringList(nil, kList, []string{"alpha", "beta", "gamma"})
	for _, c := range []struct {
		name string
		b    []byte
		read func(r *Fields) int
		want float64
	}{
		{"ints", ints, func(r *Fields) int { return len(r.Ints("tags")) }, 1},
		{"strings", strs, func(r *Fields) int { return len(r.Strings("tags")) }, 4},
	} {
		r := Fields{err: new(error)}
		n := testing.AllocsPerRun(50, func() {
			r.b = c.b
			if !r.Next() || c.read(&r) == 0 || r.Err() != nil {
				t.Fatalf("%s: %v", c.name, r.Err())
			}
		})
		if n != c.want {
			t.Errorf("%s: %v allocations, want %v", c.name, n, c.want)
		}
	}
	r := NewFields(AppendStringList(nil, kList, nil))
	if !r.Next() || r.Strings("tags") != nil || r.Err() != nil {
		t.Errorf("an empty list: %v", r.Err())
	}
}

// node is any tagged value, for the fuzz test's generic reader.
type node struct {
	key  uint32
	kind Kind
	item Kind
	val  any // bool, int64, float64 (as bits), string, []node, []any
}

// walk reads every entry of b by its own kind, as a build that knows all
// the keys would.
func walk(r *Fields) []node {
	var out []node
	for r.Next() {
		n := node{key: r.Key(), kind: r.Kind()}
		switch n.kind {
		case KindBool:
			n.val = r.Bool("x")
		case KindInt:
			n.val = r.Int("x")
		case KindFloat:
			n.val = math.Float64bits(r.Float("x"))
		case KindString:
			n.val = r.String("x")
		case KindEnum:
			n.val = r.val // any value is one of this reader's
		case KindGroup:
			g := r.Group("x")
			n.val = walk(&g)
		case KindList:
			if len(r.val) > 0 {
				n.item = Kind(r.val[0])
			}
			switch n.item {
			case KindBool:
				n.val = r.Bools("x")
			case KindInt:
				n.val = r.Ints("x")
			case KindFloat:
				n.val = r.Floats("x")
			default:
				n.val = r.Strings("x")
				n.item = KindString
			}
		default:
			continue // an unknown kind: skipped
		}
		out = append(out, n)
	}
	return out
}

func encode(b []byte, ns []node) []byte {
	for _, n := range ns {
		switch v := n.val.(type) {
		case bool:
			b = AppendBoolField(b, n.key, v)
		case int64:
			b = AppendIntField(b, n.key, v)
		case uint64:
			b = AppendFloatField(b, n.key, math.Float64frombits(v))
		case string:
			b = AppendStringField(b, n.key, v)
		case []byte:
			b = AppendEnumField(b, n.key, string(v))
		case []node:
			var m int
			b, m = BeginGroup(b, n.key)
			b = EndGroup(encode(b, v), m)
		case []bool:
			b = AppendBoolList(b, n.key, v)
		case []int64:
			b = AppendIntList(b, n.key, v)
		case []float64:
			b = AppendFloatList(b, n.key, v)
		case []string:
			b = AppendStringList(b, n.key, v)
		default:
			panic(fmt.Sprintf("node value %T", v))
		}
	}
	return b
}

// Arbitrary bytes never panic the reader; what it reads without error
// writes back to bytes that read the same, and those are stable.
func FuzzTagged(f *testing.F) {
	f.Add(sample())
	f.Add([]byte{})
	f.Add(AppendEnumField(nil, kEnum, color("purple")))
	f.Add(append(appendHeader(nil, 1, KindList, 3), byte(KindString), 1, 'a'))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewFields(data)
		tree := walk(r)
		if r.Err() != nil {
			return
		}
		again := encode(nil, tree)
		r2 := NewFields(again)
		tree2 := walk(r2)
		if r2.Err() != nil {
			t.Fatalf("re-encoded bytes do not read: %v", r2.Err())
		}
		if !reflect.DeepEqual(normalize(tree), normalize(tree2)) {
			t.Fatalf("read\n%v\nthen\n%v", tree, tree2)
		}
		if !bytes.Equal(encode(nil, tree2), again) {
			t.Fatal("the encoding of a value is not stable")
		}
	})
}

// normalize makes nil and empty slices equal (an empty list reads as nil).
func normalize(ns []node) []node {
	out := make([]node, len(ns))
	for i, n := range ns {
		switch v := n.val.(type) {
		case []node:
			n.val = normalize(v)
		case []byte:
			n.val = string(v)
		case []string:
			n.val = fmt.Sprint(len(v), v)
		case []int64:
			n.val = fmt.Sprint(len(v), v)
		case []bool:
			n.val = fmt.Sprint(len(v), v)
		case []float64:
			n.val = fmt.Sprint(len(v), v)
		}
		out[i] = n
	}
	return out
}

// Values of every kind round-trip exactly.
func FuzzTaggedValues(f *testing.F) {
	f.Add(true, int64(-1), 0.5, "é", "red")
	f.Fuzz(func(t *testing.T, flag bool, count int64, ratio float64, note, enum string) {
		var b []byte
		b = AppendBoolField(b, kBool, flag)
		b = AppendIntField(b, kInt, count)
		b = AppendFloatField(b, kFloat, ratio)
		b = AppendStringField(b, kString, note)
		b = AppendStringList(b, kList, []string{note, enum})
		got, err := readSample(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) || (isUTF8(note) && isUTF8(enum)) {
				t.Fatalf("read: %v", err)
			}
			return
		}
		if got.flag != flag || got.count != count || math.Float64bits(got.ratio) != math.Float64bits(ratio) || got.note != note || !reflect.DeepEqual(got.tags, []string{note, enum}) {
			t.Fatalf("got %+v", got)
		}
	})
}

func isUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestEndGroupOmitEmpty(t *testing.T) {
	b, m := BeginGroup([]byte{9}, kGroup)
	if b = EndGroupOmitEmpty(b, m); !bytes.Equal(b, []byte{9}) {
		t.Fatalf("an empty group left %v", b)
	}
	b, m = BeginGroup(b, kGroup)
	b = EndGroupOmitEmpty(AppendBoolField(b, kBool, false), m)
	r := NewFields(b[1:])
	if !r.Next() || r.Key() != kGroup || r.Next() || r.Err() != nil {
		t.Fatalf("a group with an entry was dropped: %v", b)
	}
}

func TestOfferedValuesAndOptions(t *testing.T) {
	type option struct{ V, T string }
	opts := []option{{"c-1", "Ann Smith"}, {"c-2", "Bob Smith"}}
	b := AppendEnumField(nil, FieldKey("pick"), "c-2")
	b = AppendEnumList(b, FieldKey("picks"), []string{"c-1", "c-2"})
	b = AppendOptionList(b, FieldKey("matches"), len(opts), func(i int) (string, string) { return opts[i].V, opts[i].T })
	r := NewFields(b)
	var pick string
	var picks []string
	var got []option
	for r.Next() {
		switch r.Key() {
		case FieldKey("pick"):
			pick = r.OfferedField("pick")
		case FieldKey("picks"):
			picks = r.OfferedList("picks")
		case FieldKey("matches"):
			got = OptionList(r, "matches", func(v, t string) option { return option{v, t} })
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if pick != "c-2" || len(picks) != 2 || picks[1] != "c-2" || len(got) != 2 || got[1] != opts[1] {
		t.Fatalf("read back %q %q %v", pick, picks, got)
	}
	// A string where an offered enum was written is a changed kind.
	r = NewFields(AppendStringField(nil, FieldKey("pick"), "c-2"))
	for r.Next() {
		r.OfferedField("pick")
	}
	if _, ok := errors.AsType[*KindError](r.Err()); !ok {
		t.Fatalf("err = %v, want a KindError", r.Err())
	}
}
