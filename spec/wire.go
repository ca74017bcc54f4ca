package spec

import (
	"hash/fnv"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// WireKind is the kind a carried value is written with in a continuation
// (docs/evolution.md, "What a token carries"). The continuation codec tags
// every carried value with it, and mrtrgen breaking reports a carried value
// whose kind changes (carried-type-changed): both ask these methods, so they
// agree on what "the same type" is.
type WireKind uint8

const (
	WireBool WireKind = iota + 1
	WireInt
	WireFloat
	WireString
	// WireEnum is carried by the value's name, never its position, so
	// adding or reordering values keeps old tokens readable.
	WireEnum
	WireList
	// WireGroup is an answer of an elicitation: a group of its form fields.
	WireGroup
	// WireOption is one option of a continuation list: its value and its
	// title, two strings.
	WireOption
)

var wireKindNames = map[WireKind]string{
	WireBool: "bool", WireInt: "int", WireFloat: "float", WireString: "string",
	WireEnum: "enum", WireList: "list", WireGroup: "group", WireOption: "option",
}

func (k WireKind) String() string {
	if s, ok := wireKindNames[k]; ok {
		return s
	}
	return "unknown"
}

// WireKind is the kind the field's value is carried with. An integer and a
// number are different kinds (a token holding 3 as an int does not hold a
// float), and so are a string and an enum. An enum whose values come from
// a continuation list (valuesFrom) is an enum too: it is carried by its
// value.
func (f *Field) WireKind() WireKind {
	switch f.Type {
	case TypeString:
		return WireString
	case TypeEnum:
		return WireEnum
	case TypeInteger:
		return WireInt
	case TypeNumber:
		return WireFloat
	case TypeBoolean:
		return WireBool
	case TypeArray:
		return WireList
	case TypeOption:
		return WireOption
	}
	return 0
}

// WireType is the field's whole wire shape: its kind, and for a list the
// shape of its items ("list of enum"). Two builds read each other's values
// of a field only when its WireType is the same in both.
func (f *Field) WireType() string {
	if f.Type == TypeArray && f.Items != nil {
		return "list of " + f.Items.WireType()
	}
	return f.WireKind().String()
}

// WireKind is the kind of the request's answer: an elicitation's answer is
// a group of its form fields, a sampled text a string, roots a list of URIs,
// a URL-mode elicitation a boolean (accepted).
func (r *InputRequest) WireKind() WireKind {
	switch r.Kind {
	case vocab.Sample:
		return WireString
	case vocab.Roots:
		return WireList
	case vocab.ElicitURL:
		return WireBool // accepted: the answer carries nothing else
	}
	return WireGroup
}

// WireType is the shape of the request's answer, as Field.WireType (the
// fields of a group are compared one by one, not here).
func (r *InputRequest) WireType() string {
	if r.Kind == vocab.Roots {
		return "list of string"
	}
	return r.WireKind().String()
}

// FieldKey is the key of a value named name among the tagged entries of a
// continuation (envelope 3): FNV-1a, 32 bits, as binenc.FieldKey computes
// it at run time (a test keeps the two equal). Two names of one group with
// one key would be read as each other; lint refuses them
// (continuation-key-collision).
func FieldKey(name string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()
}
