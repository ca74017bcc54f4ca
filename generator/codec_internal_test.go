package generator

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
	"github.com/mrtrgen/mrtrgen/spec"
)

// The generator computes the keys and names the kinds of the tagged
// encoding without importing the runtime; they must be the runtime's.
func TestCodecAgreesWithBinenc(t *testing.T) {
	for _, name := range []string{"", "a", "continuation", "answers", "gates", "closeReason", "ünïcødé", "f6059"} {
		if got, want := fieldKey(name), binenc.FieldKey(name); got != want {
			t.Errorf("fieldKey(%q) = %#x, binenc.FieldKey = %#x", name, got, want)
		}
	}
	for k := spec.WireBool; k <= spec.WireGroup; k++ {
		if got := binenc.Kind(k).String(); got != k.String() {
			t.Errorf("wire kind %d is %s in spec and %s in binenc", k, k, got)
		}
		if k.GoName() != "Kind"+map[string]string{"bool": "Bool", "int": "Int", "float": "Float", "string": "String", "enum": "Enum", "list": "List", "group": "Group"}[k.String()] {
			t.Errorf("GoName of %s: %s", k, k.GoName())
		}
	}
}
