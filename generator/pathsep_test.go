package generator

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

// The generated scripts write paths as mrtrtest compares them.
func TestPathSeparator(t *testing.T) {
	if pathSeparator != mrtrtest.PathSeparator {
		t.Fatalf("generator writes paths with %q, mrtrtest reads them with %q", pathSeparator, mrtrtest.PathSeparator)
	}
}
