package generator_test

import (
	"bytes"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/generator"
	"github.com/mrtrgen/mrtrgen/internal/testfiles"
	"github.com/mrtrgen/mrtrgen/spec"
)

// Rules every output of generate follows, whatever the spec.

// allOutputs generates every golden case that generates, and every example.
func allOutputs(t *testing.T) map[string][]generator.File {
	t.Helper()
	out := map[string][]generator.File{}
	for _, c := range goldenCases(t) {
		files, _, err := generateCase(t, c)
		if err == nil && files != nil {
			out[c.name] = files
		}
	}
	examples, _ := filepath.Glob("../examples/specs/*.mrtr.yaml")
	for _, p := range examples {
		f, ds := loadAndLint(t, p)
		if ds.HasErrors() {
			t.Fatalf("%s:\n%s", p, lintText(t, ds))
		}
		files, err := generator.Generate(f, generator.Options{SpecPath: p})
		if err != nil {
			t.Fatal(err)
		}
		out["example "+filepath.Base(p)] = files
	}
	return out
}

// The first line of a generated file is the header in the file's comment
// syntax; a scaffold starts with its own header and has no "DO NOT EDIT".
func TestOutputHeader(t *testing.T) {
	for name, files := range allOutputs(t) {
		for _, f := range files {
			first, _, _ := strings.Cut(string(f.Content), "\n")
			switch {
			case f.Kind == generator.Scaffold:
				if !strings.HasPrefix(first, "// Written by mrtrgen") || strings.Contains(string(f.Content), "DO NOT EDIT") {
					t.Errorf("%s: scaffold %s starts %q", name, f.Path, first)
				}
			case strings.HasSuffix(f.Path, ".go"):
				if first != "// "+generator.Header {
					t.Errorf("%s: %s starts %q", name, f.Path, first)
				}
			case strings.HasSuffix(f.Path, ".md"):
				if first != "<!-- "+generator.Header+" -->" {
					t.Errorf("%s: %s starts %q", name, f.Path, first)
				}
			default:
				if first != "# "+generator.Header {
					t.Errorf("%s: %s starts %q", name, f.Path, first)
				}
			}
		}
	}
}

// Every Go file is exactly what gofmt makes of it.
func TestOutputGofmt(t *testing.T) {
	for name, files := range allOutputs(t) {
		for _, f := range files {
			if !strings.HasSuffix(f.Path, ".go") {
				continue
			}
			formatted, err := format.Source(f.Content)
			if err != nil {
				t.Errorf("%s: %s does not parse: %v", name, f.Path, err)
				continue
			}
			if !bytes.Equal(formatted, f.Content) {
				t.Errorf("%s: %s is not gofmt-clean", name, f.Path)
			}
		}
	}
}

// Generating twice gives the same bytes, a second apart too (no
// timestamps), and nothing in the output is today's date.
func TestOutputDeterministic(t *testing.T) {
	first := allOutputs(t)
	time.Sleep(1100 * time.Millisecond)
	second := allOutputs(t)
	now := time.Now()
	stamps := []string{now.Format(time.DateOnly), now.Format("Jan 2, 2006"), now.Format("2006/01/02"), now.Format("02 Jan 06")}
	for name, files := range first {
		if len(second[name]) != len(files) {
			t.Errorf("%s: %d files, then %d", name, len(files), len(second[name]))
			continue
		}
		for i, f := range files {
			g := second[name][i]
			if f.Path != g.Path || f.Kind != g.Kind || !bytes.Equal(f.Content, g.Content) {
				t.Errorf("%s: %s differs between two runs", name, f.Path)
			}
			for _, s := range stamps {
				if bytes.Contains(f.Content, []byte(s)) {
					t.Errorf("%s: %s contains today's date (%s)", name, f.Path, s)
				}
			}
		}
	}
}

// The same spec gives the same bytes from any working directory and
// whether it is named by a relative or an absolute path, in any parent
// directory: the source line is relative, and nothing else names a path.
func TestOutputIndependentOfPaths(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(goldenDir, "output_dir", "api.mrtr.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	checkOut, err := os.ReadFile("../examples/specs/customers.mrtr.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{{"api.mrtr.yaml", src}, {"customers.mrtr.yaml", checkOut}} {
		t.Run(tc.name, func(t *testing.T) {
			// The spec directories share their name: a spec whose output is
			// outside its directory (../generated/x) names that directory in
			// its source line.
			a := filepath.Join(t.TempDir(), "specs")
			b := filepath.Join(t.TempDir(), "some", "deeper", "specs")
			for _, dir := range []string{a, b} {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, tc.name), tc.data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			abs := generateSpec(t, filepath.Join(a, tc.name))
			t.Chdir(b)
			rel := generateSpec(t, tc.name)
			t.Chdir(filepath.Dir(b))
			relSub := generateSpec(t, filepath.Join("specs", tc.name))
			t.Chdir(filepath.Join(b, "..", "..", ".."))
			dotted := generateSpec(t, "./some/deeper/../deeper/specs/./"+tc.name)
			for _, other := range [][]generator.File{rel, relSub, dotted} {
				if len(other) != len(abs) {
					t.Fatalf("%d files, then %d", len(abs), len(other))
				}
				for i := range abs {
					if abs[i].Path != other[i].Path || !bytes.Equal(abs[i].Content, other[i].Content) {
						t.Errorf("%s differs with another path to the spec:\n%s", abs[i].Path, firstDiff(abs[i].Content, other[i].Content))
					}
				}
			}
			for _, f := range abs {
				if strings.HasSuffix(f.Path, ".mrtr.go") && !bytes.Contains(f.Content, []byte("\n// source: ")) {
					t.Errorf("%s has no source line", f.Path)
				}
			}
		})
	}
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "  " + al[i] + "\n  " + bl[i]
		}
	}
	return "(lengths differ)"
}

// twoTools is a spec of two tools generating next to it.
const twoTools = testfiles.TwoTools

// generateSpec loads the spec at path, which must load without errors
// (it is not linted), and generates it.
func generateSpec(t *testing.T, path string) []generator.File {
	t.Helper()
	f, ds, err := spec.LoadFile(path, spec.Options{})
	if err != nil || ds.HasErrors() {
		t.Fatalf("%v\n%v", err, ds)
	}
	files, err := generator.Generate(f, generator.Options{SpecPath: path})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// writeSpec writes a spec into dir and returns its path.
func writeSpec(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// plan loads, generates and plans a spec as generate does.
func plan(t *testing.T, specPath string) []generator.Change {
	t.Helper()
	changes, err := generator.Plan(specPath, generateSpec(t, specPath))
	if err != nil {
		t.Fatal(err)
	}
	return changes
}

func apply(t *testing.T, changes []generator.Change) {
	t.Helper()
	if err := generator.Apply(changes); err != nil {
		t.Fatal(err)
	}
}

func actions(changes []generator.Change) map[string]generator.Action {
	out := map[string]generator.Action{}
	for _, c := range changes {
		out[filepath.Base(c.Path)] = c.Action
	}
	return out
}

// Regenerating an unchanged spec writes nothing: no file's modification
// time moves. A changed tool rewrites its own files only.
func TestWriteOnlyIfChanged(t *testing.T) {
	dir := t.TempDir()
	specPath := writeSpec(t, dir, "pair.mrtr.yaml", twoTools)
	apply(t, plan(t, specPath))

	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Chtimes(filepath.Join(dir, e.Name()), old, old); err != nil {
			t.Fatal(err)
		}
	}
	mtimes := func() map[string]time.Time {
		out := map[string]time.Time{}
		for _, e := range entries {
			st, err := os.Stat(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = st.ModTime()
		}
		return out
	}

	changes := plan(t, specPath)
	for _, c := range changes {
		if c.Action != generator.Unchanged && c.Action != generator.Keep {
			t.Errorf("regenerating an unchanged spec would %s %s", c.Action, c.Path)
		}
	}
	apply(t, changes)
	for name, mt := range mtimes() {
		if !mt.Equal(old) {
			t.Errorf("%s was written (mtime %v)", name, mt)
		}
	}

	// Change the second tool's message: only its workflow file (and the
	// Markdown page) change.
	writeSpec(t, dir, "pair.mrtr.yaml", strings.Replace(twoTools, "message: two", "message: zwei", 1))
	apply(t, plan(t, specPath))
	for name, mt := range mtimes() {
		changed := !mt.Equal(old)
		want := name == "second_tool.mrtr.go" || name == "pair.md" || name == "second_tool.mrtr_test.go" || name == "pair.mrtr.yaml"
		if changed && !want {
			t.Errorf("%s was rewritten though its content did not change", name)
		}
		if !changed && (name == "second_tool.mrtr.go" || name == "pair.mrtr.yaml") {
			t.Errorf("%s was not rewritten", name)
		}
	}
}

// A tool removed from a spec takes its generated files with it, and
// nothing else: not its scaffold (the user's), not a file without the
// header, not a generated file of another spec in the same directory.
func TestRemovedToolDeletesOnlyItsFiles(t *testing.T) {
	dir := t.TempDir()
	specPath := writeSpec(t, dir, "pair.mrtr.yaml", twoTools)
	apply(t, plan(t, specPath))

	mine := []byte("package pair\n\n// A file of the user's, named like a generated one.\nconst second = 2\n")
	if err := os.WriteFile(filepath.Join(dir, "second_tool_extra.mrtr.go"), mine, 0o644); err != nil {
		t.Fatal(err)
	}
	other := []byte("// " + generator.Header + "\n// source: other.mrtr.yaml\n\npackage pair\n")
	if err := os.WriteFile(filepath.Join(dir, "other_tool.mrtr.go"), other, 0o644); err != nil {
		t.Fatal(err)
	}
	otherElsewhere := []byte("// " + generator.Header + "\n// source: ../specs/pair.mrtr.yaml\n\npackage pair\n")
	if err := os.WriteFile(filepath.Join(dir, "elsewhere.mrtr.go"), otherElsewhere, 0o644); err != nil {
		t.Fatal(err)
	}

	first, _, ok := strings.Cut(twoTools, "  second_tool:")
	if !ok {
		t.Fatal("twoTools has no second_tool")
	}
	writeSpec(t, dir, "pair.mrtr.yaml", first)
	changes := plan(t, specPath)
	got := actions(changes)
	for name, want := range map[string]generator.Action{
		"second_tool.mrtr.go":      generator.Delete,
		"second_tool.mrtr_test.go": generator.Delete,
		"first_tool.mrtr.go":       generator.Unchanged,
		"package.mrtr.go":          generator.Update,
		"first_tool_handler.go":    generator.Keep,
	} {
		if got[name] != want {
			t.Errorf("%s: %s, want %s", name, got[name], want)
		}
	}
	for _, name := range []string{"second_tool_handler.go", "second_tool_extra.mrtr.go", "other_tool.mrtr.go", "elsewhere.mrtr.go"} {
		if a, ok := got[name]; ok {
			t.Errorf("%s: %s, want it left alone", name, a)
		}
	}
	apply(t, changes)
	for _, name := range []string{"second_tool.mrtr.go", "second_tool.mrtr_test.go"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s still exists (%v)", name, err)
		}
	}
	for _, name := range []string{"second_tool_handler.go", "second_tool_extra.mrtr.go", "other_tool.mrtr.go", "elsewhere.mrtr.go", "first_tool.mrtr.go"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s is gone: %v", name, err)
		}
	}
}

// A scaffold is written once; after that it is the user's, even when the
// spec changes what it would contain.
func TestScaffoldNeverOverwritten(t *testing.T) {
	dir := t.TempDir()
	specPath := writeSpec(t, dir, "pair.mrtr.yaml", twoTools)
	apply(t, plan(t, specPath))
	scaffold := filepath.Join(dir, "first_tool_handler.go")
	edited := []byte("package pair\n\n// edited by hand\n")
	if err := os.WriteFile(scaffold, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	// A check added to the tool adds a method to the scaffold it would write.
	changed := strings.Replace(twoTools, "    initial: done\n    states:\n      done: {terminal: success, message: one}",
		"    initial: look\n    states:\n      look: {check: lookAround, next: done}\n      done: {terminal: success, message: one}", 1)
	writeSpec(t, dir, "pair.mrtr.yaml", changed)
	changes := plan(t, specPath)
	if a := actions(changes)["first_tool_handler.go"]; a != generator.Keep {
		t.Errorf("scaffold: %s, want keep", a)
	}
	apply(t, changes)
	if b, _ := os.ReadFile(scaffold); !bytes.Equal(b, edited) {
		t.Errorf("the scaffold was overwritten:\n%s", b)
	}
}

// Two specs cannot share an output directory: a generated file of another
// spec that exists is not overwritten. Once that spec is gone (renamed),
// its files may be taken over.
func TestOtherSpecsFilesNotOverwritten(t *testing.T) {
	dir := t.TempDir()
	a := writeSpec(t, dir, "a.mrtr.yaml", twoTools)
	b := writeSpec(t, dir, "b.mrtr.yaml", strings.ReplaceAll(twoTools, "_tool", "_thing"))
	apply(t, plan(t, a))
	f, _, err := spec.LoadFile(b, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := generator.Generate(f, generator.Options{SpecPath: b})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := generator.Plan(b, files); err == nil || !strings.Contains(err.Error(), "generated from") {
		t.Fatalf("planning b over a's package.mrtr.go: %v, want a refusal", err)
	}
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	changes, err := generator.Plan(b, files)
	if err != nil {
		t.Fatalf("after a.mrtr.yaml is gone: %v", err)
	}
	if got := actions(changes)["package.mrtr.go"]; got != generator.Update {
		t.Errorf("package.mrtr.go: %s, want update", got)
	}
}

// With ScaffoldExists, a scaffold already on disk is not rendered again and
// Plan keeps it; one that is missing is rendered and written; one that
// disappears between Generate and Plan is an error, never an empty file.
func TestScaffoldExistsSkipsRendering(t *testing.T) {
	dir := t.TempDir()
	specPath := writeSpec(t, dir, "pair.mrtr.yaml", twoTools)
	apply(t, plan(t, specPath))
	f, ds, err := spec.LoadFile(specPath, spec.Options{})
	if err != nil || ds.HasErrors() {
		t.Fatalf("%v\n%v", err, ds)
	}
	var removed string
	exists := func(p string) bool {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		return err == nil
	}
	files, err := generator.Generate(f, generator.Options{SpecPath: specPath, ScaffoldExists: exists})
	if err != nil {
		t.Fatal(err)
	}
	scaffolds := 0
	for _, f := range files {
		if f.Kind != generator.Scaffold {
			continue
		}
		scaffolds++
		if f.Content != nil {
			t.Errorf("%s exists but was rendered again", f.Path)
		}
		removed = f.Path
	}
	if scaffolds != 2 {
		t.Fatalf("%d scaffolds, want 2", scaffolds)
	}
	changes, err := generator.Plan(specPath, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Action != generator.Unchanged && c.Action != generator.Keep {
			t.Errorf("an unchanged spec with existing scaffolds would %s %s", c.Action, c.Path)
		}
	}

	// A scaffold deleted after Generate saw it: Plan refuses.
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(removed))); err != nil {
		t.Fatal(err)
	}
	if _, err := generator.Plan(specPath, files); err == nil || !strings.Contains(err.Error(), "disappeared while generating") {
		t.Fatalf("Plan with a vanished scaffold: %v", err)
	}
	// The next run renders and writes it again.
	files, err = generator.Generate(f, generator.Options{SpecPath: specPath, ScaffoldExists: exists})
	if err != nil {
		t.Fatal(err)
	}
	changes, err = generator.Plan(specPath, files)
	if err != nil {
		t.Fatal(err)
	}
	created := 0
	for _, c := range changes {
		if c.Action == generator.Create {
			created++
			if filepath.Base(c.Path) != filepath.Base(removed) || len(c.New) == 0 {
				t.Errorf("creates %s (%d bytes), want the missing scaffold %s", c.Path, len(c.New), removed)
			}
		}
	}
	if created != 1 {
		t.Fatalf("%d files created, want the missing scaffold", created)
	}
}

// A validator of a form off the fixture workflow's path is checked too:
// CheckValidator steers the fake onto the branch that asks.
func TestValidatorOffPathIsChecked(t *testing.T) {
	p := writeSpec(t, t.TempDir(), "offpath.mrtr.yaml", `version: 1
package: offpath
validators:
  notBlank: {type: string}
tools:
  pick:
    description: Picks.
    initial: decide
    states:
      decide:
        check: decide
        outcomes: {fast: done, slow: askWhy}
      askWhy:
        ask:
          why:
            elicit:
              message: Why slow?
              fields:
                reason: {type: string, required: true, maxLength: 20, validate: [notBlank]}
        next: done
      done: {terminal: success, message: Done.}
`)
	for _, file := range generateSpec(t, p) {
		if strings.HasSuffix(file.Path, "pick.mrtr_test.go") {
			if !regexp.MustCompile(`CheckValidator\(t, p, fx, h\.fake\.Use\("notBlank", mrtrtest\.ValidatorUse\{[^}]*Request: +"why"`).Match(file.Content) {
				t.Fatalf("the off-path validator is not checked:\n%s", file.Content)
			}
			return
		}
	}
	t.Fatal("no pick.mrtr_test.go")
}
