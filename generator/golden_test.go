package generator_test

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/generator"
	"github.com/mrtrgen/mrtrgen/internal/testfiles"
	"github.com/mrtrgen/mrtrgen/lint"
	"github.com/mrtrgen/mrtrgen/spec"
)

// Golden end-to-end cases, sqlc style. Each directory under testdata/golden
// holds one spec (<name>.mrtr.yaml) and what `mrtrgen generate` makes of it:
//
//	want/      every file generate writes, at its path relative to the spec
//	           (generated files and scaffolds alike)
//	lint.txt   the warnings generate prints (text format), when there are any
//	errors.txt for a spec whose lint errors stop generation: the findings,
//	           exactly as generate prints them; or, for a spec Generate
//	           refuses, its error; such a case has no want/
//
// go test ./generator -run TestGolden -update rewrites them from the
// current generator; review the diff like any other change.

var update = flag.Bool("update", false, "rewrite testdata/golden from the current generator")

const goldenDir = "testdata/golden"

// goldenCase is one directory of testdata/golden.
type goldenCase struct {
	name string // the directory's name
	dir  string
	spec string // path of the spec file
}

func goldenCases(t testing.TB) []goldenCase {
	t.Helper()
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(goldenDir, e.Name())
		specs, err := filepath.Glob(filepath.Join(dir, "*"+spec.Ext))
		if err != nil || len(specs) != 1 {
			t.Fatalf("%s: want exactly one %s file, found %v (%v)", dir, spec.Ext, specs, err)
		}
		cases = append(cases, goldenCase{name: e.Name(), dir: dir, spec: specs[0]})
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases")
	}
	return cases
}

// loadAndLint does what generate does before generating: load the spec,
// then lint it. Diagnostics name the spec by its base name, as generate
// does when run in the spec's directory.
func loadAndLint(t testing.TB, path string) (*spec.File, spec.Diagnostics) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, ds := spec.Parse(filepath.Base(path), data, spec.Options{})
	if f != nil {
		ds = append(ds, lint.Run(f)...)
	}
	ds.Sort()
	return f, ds
}

// lintText renders findings as generate prints them on stderr.
func lintText(t testing.TB, ds spec.Diagnostics) string {
	t.Helper()
	var b bytes.Buffer
	if err := lint.Write(&b, "text", ds, "test"); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// generateCase generates a golden case in memory: the files, or the
// findings that stop generation, or the error of Generate.
func generateCase(t testing.TB, c goldenCase) ([]generator.File, spec.Diagnostics, error) {
	t.Helper()
	f, ds := loadAndLint(t, c.spec)
	if ds.HasErrors() {
		return nil, ds, nil
	}
	files, err := generator.Generate(f, generator.Options{SpecPath: c.spec})
	return files, ds, err
}

// readTree returns the files under dir by slash path relative to dir (nil
// when dir does not exist).
func readTree(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := testfiles.Walk(dir, func(rel, p string) error {
		b, err := os.ReadFile(p)
		out[rel] = b
		return err
	})
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func writeTree(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for p, b := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// compareText fails with the golden file's name, then a diff of the first
// differing line, when got and want differ.
func compareText(t *testing.T, name string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(gl), len(wl)) {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w || i >= len(gl) || i >= len(wl) {
			t.Errorf("%s differs from the golden file at line %d (run go test ./generator -run TestGolden -update, then review the diff)\n got: %q\nwant: %q", name, i+1, g, w)
			return
		}
	}
}

// TestGolden generates every case in memory and compares the result byte
// for byte with the golden files.
func TestGolden(t *testing.T) {
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			files, ds, genErr := generateCase(t, c)
			errorsPath := filepath.Join(c.dir, "errors.txt")
			lintPath := filepath.Join(c.dir, "lint.txt")
			wantDir := filepath.Join(c.dir, "want")
			if ds.HasErrors() || genErr != nil {
				got := []byte(lintText(t, ds))
				if genErr != nil {
					got = []byte(genErr.Error() + "\n")
				}
				if *update {
					writeTree(t, wantDir, nil)
					os.Remove(lintPath)
					if err := os.WriteFile(errorsPath, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(errorsPath)
				if err != nil {
					t.Fatalf("generation fails but the case has no errors.txt:\n%s", got)
				}
				compareText(t, "errors.txt", got, want)
				if readTree(t, wantDir) != nil {
					t.Errorf("generation fails, so nothing is generated, but the case has a want/ directory")
				}
				return
			}
			gotFiles := map[string][]byte{}
			for _, f := range files {
				if _, dup := gotFiles[f.Path]; dup {
					t.Fatalf("Generate returned %s twice", f.Path)
				}
				gotFiles[f.Path] = f.Content
			}
			var warnings []byte
			if len(ds) > 0 {
				warnings = []byte(lintText(t, ds))
			}
			if *update {
				os.Remove(errorsPath)
				os.Remove(lintPath)
				if warnings != nil {
					if err := os.WriteFile(lintPath, warnings, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				writeTree(t, wantDir, gotFiles)
				return
			}
			if _, err := os.Stat(errorsPath); err == nil {
				t.Errorf("the case has errors.txt but the spec generates")
			}
			wantWarnings, _ := os.ReadFile(lintPath)
			compareText(t, "lint.txt", warnings, wantWarnings)
			want := readTree(t, wantDir)
			for _, p := range slices.Sorted(maps.Keys(gotFiles)) {
				w, ok := want[p]
				if !ok {
					t.Errorf("generated %s, which the golden files lack", p)
					continue
				}
				compareText(t, p, gotFiles[p], w)
			}
			for _, p := range slices.Sorted(maps.Keys(want)) {
				if _, ok := gotFiles[p]; !ok {
					t.Errorf("golden file %s is no longer generated", p)
				}
			}
		})
	}
}
