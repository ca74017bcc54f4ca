package spec

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// Every field type has its own wire kind (the codec tags values with it, so
// two types sharing one would read each other's bytes), and a list's shape
// includes its items'.
func TestWireKinds(t *testing.T) {
	seen := map[WireKind]FieldType{}
	for ft := range fieldTypeNames {
		k := (&Field{Type: ft}).WireKind()
		if k == 0 || k.String() == "unknown" {
			t.Errorf("%s has no wire kind", ft)
		}
		if other, dup := seen[k]; dup {
			t.Errorf("%s and %s share the wire kind %s", ft, other, k)
		}
		seen[k] = ft
	}
	list := &Field{Type: TypeArray, Items: &Field{Type: TypeEnum}}
	if got := list.WireType(); got != "list of enum" {
		t.Errorf("array of enum: WireType %q", got)
	}
	for kind, want := range map[vocab.RequestKind]string{vocab.Elicit: "group", vocab.Sample: "string", vocab.Roots: "list of string"} {
		if got := (&InputRequest{Kind: kind}).WireType(); got != want {
			t.Errorf("%s answer: WireType %q, want %q", kind.Method(), got, want)
		}
	}
}
