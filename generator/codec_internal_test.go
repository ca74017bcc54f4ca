package generator

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
	"github.com/mrtrgen/mrtrgen/spec"
)

// The generator computes the keys of the tagged encoding without importing
// the runtime, and spec numbers its wire kinds (what mrtrgen breaking
// compares) without it: both must be the runtime's.
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
	}
}
