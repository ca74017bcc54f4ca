package spec_test

import (
	"path/filepath"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

// Every example spec loads without errors (which includes validation
// against the embedded JSON Schema).
func TestExamplesLoad(t *testing.T) {
	paths, err := filepath.Glob("../examples/specs/*.mrtr.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example specs found: %v", err)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			f, ds, err := spec.LoadFile(p, spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if ds.HasErrors() {
				t.Fatalf("diagnostics:\n%s", ds.Error())
			}
			if len(f.Workflows()) == 0 {
				t.Fatal("no tools or prompts")
			}
		})
	}
}
