package spec_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mrtrgen/mrtrgen/lint"
	"github.com/mrtrgen/mrtrgen/spec"
)

// FuzzParse loads arbitrary bytes. Whatever the input, the loader must not
// panic; it returns a File or at least one error, never both and never
// neither; every diagnostic is positioned in the file; and loading the same
// bytes twice gives the same answer. Loaded files are linted, with the same
// demands.
//
//	go test ./spec -run '^$' -fuzz FuzzParse -fuzztime 5m
func FuzzParse(f *testing.F) {
	for _, glob := range []string{"../examples/specs/*.mrtr.yaml", "testdata/hostile/*.mrtr.yaml", "../lint/testdata/rules/*.mrtr.yaml"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz.mrtr.yaml"
		file, ds := spec.Parse(name, data, spec.Options{})
		switch {
		case file == nil && len(ds) == 0:
			t.Fatal("neither a File nor a diagnostic")
		case file == nil && !ds.HasErrors():
			t.Fatalf("no File, but only warnings:\n%s", ds.Error())
		case file != nil && ds.HasErrors():
			t.Fatalf("a File and errors:\n%s", ds.Error())
		}
		checkPositions(t, name, ds)
		file2, ds2 := spec.Parse(name, data, spec.Options{})
		if formatText(ds) != formatText(ds2) {
			t.Fatalf("two loads differ:\n%s\n---\n%s", formatText(ds), formatText(ds2))
		}
		if file == nil {
			return
		}
		if file2 == nil || dump(file) != dump(file2) {
			t.Fatal("two loads give different models")
		}
		ls := lint.Run(file)
		checkPositions(t, name, ls)
		if formatText(ls) != formatText(lint.Run(file2)) {
			t.Fatal("two lints differ")
		}
	})
}

func checkPositions(t *testing.T, name string, ds spec.Diagnostics) {
	t.Helper()
	for _, d := range ds {
		if d.Pos.File != name {
			t.Fatalf("diagnostic names file %q: %s", d.Pos.File, d)
		}
		if d.Pos.Line == 0 && d.Pos.Col == 0 && d.Rule == "input" {
			continue // the whole file
		}
		if d.Pos.Line < 1 || d.Pos.Col < 1 {
			t.Fatalf("diagnostic without line:col: %s", d)
		}
		if d.Rule == "" || d.Message == "" || (d.Severity != spec.Error && d.Severity != spec.Warning) {
			t.Fatalf("malformed diagnostic: %#v", d)
		}
	}
}
