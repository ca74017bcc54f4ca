package spec

import "testing"

// A field's wire kind follows its type only: formats and bounds do not
// change how its values are carried, an array's item type does.
func TestWireKind(t *testing.T) {
	for _, c := range []struct {
		f    *Field
		kind WireKind
		typ  string
	}{
		{&Field{Type: TypeString, Format: "email", MaxLength: new(int)}, WireString, "string"},
		{&Field{Type: TypeInteger}, WireInt, "int"},
		{&Field{Type: TypeNumber}, WireFloat, "float"},
		{&Field{Type: TypeBoolean}, WireBool, "bool"},
		{&Field{Type: TypeEnum, Values: []EnumValue{{Value: "a"}}}, WireEnum, "enum"},
		{&Field{Type: TypeArray, Items: &Field{Type: TypeEnum}}, WireList, "list<enum>"},
		{&Field{Type: TypeArray, Items: &Field{Type: TypeInteger}}, WireList, "list<int>"},
	} {
		if got := c.f.WireKind(); got != c.kind {
			t.Errorf("%v: wire kind %s, want %s", c.f.Type, got, c.kind)
		}
		if got := c.f.WireType(); got != c.typ {
			t.Errorf("%v: wire type %s, want %s", c.f.Type, got, c.typ)
		}
	}
	if WireKind(0).String() != "unknown" || WireGroup.GoName() != "KindGroup" {
		t.Error("names")
	}
}
