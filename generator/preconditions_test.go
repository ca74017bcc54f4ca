package generator_test

import (
	"os"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/generator"
	"github.com/mrtrgen/mrtrgen/lint"
	"github.com/mrtrgen/mrtrgen/spec"
)

// The generator's preconditions are lint rules: a spec with an error-level
// finding (here two names that are one Go identifier) is refused with the
// finding's position and rule, whether Generate lints it or the caller did.
func TestGenerateRefusesLintErrors(t *testing.T) {
	path := "../lint/testdata/rules/go-identifier-collision.mrtr.yaml"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, ds := spec.Parse(path, data, spec.Options{})
	if f == nil {
		t.Fatalf("fixture does not load: %v", ds)
	}
	for _, opts := range []generator.Options{{}, {Linted: true, Findings: lint.Run(f)}} {
		files, err := generator.Generate(f, opts)
		if err == nil || files != nil {
			t.Fatalf("Generate(linted=%v) = %d files, %v; want a refusal", opts.Linted, len(files), err)
		}
		if msg := err.Error(); !strings.Contains(msg, "go-identifier-collision.mrtr.yaml:17:7") || !strings.Contains(msg, "[go-identifier-collision]") {
			t.Errorf("refusal does not say where and which rule: %s", msg)
		}
	}
}
