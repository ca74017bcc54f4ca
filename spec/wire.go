package spec

// WireKind is how a carried value (a continuation field, a form field of
// an answer, an argument in the arguments digest) is written in a
// continuation: the kind of its tagged entry. Its numbers are those of
// binenc.Kind, which the runtime reads; spec does not import the runtime.
// A value whose wire kind changes between two builds cannot be read by the
// other one (docs/evolution.md, rule carried-type-changed).
type WireKind uint8

const (
	WireBool WireKind = iota + 1
	WireInt
	WireFloat
	WireString
	WireEnum
	WireList
	WireGroup
)

var wireKindNames = [...]string{"", "bool", "int", "float", "string", "enum", "list", "group"}

func (k WireKind) String() string {
	if k > 0 && int(k) < len(wireKindNames) {
		return wireKindNames[k]
	}
	return "unknown"
}

// GoName is the name of the matching constant of package binenc
// ("KindInt").
func (k WireKind) GoName() string {
	s := k.String()
	return "Kind" + string(s[0]-'a'+'A') + s[1:]
}

// WireKind returns the wire kind of f's values. A list's items have their
// own (f.Items.WireKind()); two lists differ on the wire when their item
// kinds do. Formats, patterns and bounds do not change the wire kind.
func (f *Field) WireKind() WireKind {
	switch f.Type {
	case TypeBoolean:
		return WireBool
	case TypeInteger:
		return WireInt
	case TypeNumber:
		return WireFloat
	case TypeEnum:
		return WireEnum
	case TypeArray:
		return WireList
	}
	return WireString
}

// WireType is f's wire kind with its items' for a list ("list<enum>"): two
// fields with the same WireType read each other's values.
func (f *Field) WireType() string {
	if f.Type == TypeArray && f.Items != nil {
		return "list<" + f.Items.WireKind().String() + ">"
	}
	return f.WireKind().String()
}
