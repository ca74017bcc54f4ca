package generator_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/generator"
)

// TestRegressions generates specs that once made the generator fail
// (testdata/regress, one per bug): each generates without error, and every
// Go file it writes parses. TestGoldenCompile is where output is compiled;
// these are the shapes found by review that no golden case had.
//
//   - enum_transient: an enum (and a list of enums) as a transient value
//     panicked (its Go enum type was never made).
func TestRegressions(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "regress", "*.mrtr.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no regression specs: %v", err)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			f, ds := loadAndLint(t, p)
			if ds.HasErrors() {
				t.Fatalf("lint errors:\n%s", lintText(t, ds))
			}
			files, err := generator.Generate(f, generator.Options{SpecPath: p})
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range files {
				if !strings.HasSuffix(g.Path, ".go") {
					continue
				}
				if _, err := parser.ParseFile(token.NewFileSet(), g.Path, g.Content, parser.AllErrors); err != nil {
					t.Errorf("%s does not parse: %v", g.Path, err)
				}
			}
		})
	}
}
