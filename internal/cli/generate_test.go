package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/generator"
	"github.com/mrtrgen/mrtrgen/internal/testfiles"
	"github.com/mrtrgen/mrtrgen/spec"
)

// The golden cases of the generator package, through the command line:
// generate writes exactly the golden files, prints the warnings, and for a
// spec with errors prints the findings, exits 1 (2 when the generator
// refuses the spec) and writes nothing.
const goldens = "../../generator/testdata/golden"

// tree is a snapshot of a directory: content and modification time of
// every file, by slash path.
type tree map[string]treeFile

type treeFile struct {
	content []byte
	mtime   time.Time
}

func snapshot(t *testing.T, dir string) tree {
	t.Helper()
	out := tree{}
	err := testfiles.Walk(dir, func(rel, p string) error {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		out[rel] = treeFile{b, st.ModTime()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTree fails for every file added, removed, changed or touched.
func sameTree(t *testing.T, what string, before, after tree) {
	t.Helper()
	for p, a := range after {
		b, ok := before[p]
		switch {
		case !ok:
			t.Errorf("%s wrote %s", what, p)
		case !bytes.Equal(a.content, b.content):
			t.Errorf("%s changed %s", what, p)
		case !a.mtime.Equal(b.mtime):
			t.Errorf("%s touched %s", what, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s deleted %s", what, p)
		}
	}
}

func copySpec(t *testing.T, src, dir string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGenerateGoldens(t *testing.T) {
	dirs, err := os.ReadDir(goldens)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		caseDir := filepath.Join(goldens, d.Name())
		specs, _ := filepath.Glob(filepath.Join(caseDir, "*"+spec.Ext))
		if len(specs) != 1 {
			t.Fatalf("%s: %v", caseDir, specs)
		}
		t.Run(d.Name(), func(t *testing.T) {
			dir := t.TempDir()
			specPath := copySpec(t, specs[0], dir)
			if wantErrors, err := os.ReadFile(filepath.Join(caseDir, "errors.txt")); err == nil {
				goldenRefused(t, dir, specPath, string(wantErrors))
				return
			}
			goldenGenerated(t, caseDir, dir, specPath, goldenModule(t, caseDir, dir))
		})
	}
}

// goldenModule makes dir a module when the case's spec binds values to Go
// types (goType), so that generate can load them as in a user's module: a
// go.mod requiring what this one does, its go.sum, and the hand-written
// Go files of the case's extra/ that are not tests (the types). It returns
// the names of the files it wrote.
func goldenModule(t *testing.T, caseDir, dir string) []string {
	t.Helper()
	specs, _ := filepath.Glob(filepath.Join(caseDir, "*"+spec.Ext))
	b, err := os.ReadFile(specs[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("goType:")) {
		return nil
	}
	root := repoRoot(t)
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := bytes.Cut(gomod, []byte("\n")) // all but the module line: go version, requirements
	writeFile(t, filepath.Join(dir, "go.mod"), "module golden.test/"+filepath.Base(caseDir)+"\n"+string(rest))
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "go.sum"), string(gosum))
	written := []string{"go.mod", "go.sum"}
	extra, _ := filepath.Glob(filepath.Join(caseDir, "extra", "*.go"))
	for _, p := range extra {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, filepath.Base(p)), string(b))
		written = append(written, filepath.Base(p))
	}
	return written
}

// goldenRefused runs generate on a golden spec it must refuse: it prints
// wantErrors and exits with the code they call for.
func goldenRefused(t *testing.T, dir, specPath, wantErrors string) {
	prefix := filepath.ToSlash(dir) + "/"
	// An output directory with files of an earlier run, stale
	// and current: none may change.
	for name, content := range map[string]string{
		"old_tool.mrtr.go": "// " + generator.Header + "\n// source: ../" + filepath.Base(specPath) + "\n\npackage old\n",
		"notes.txt":        "mine\n",
	} {
		p := filepath.Join(dir, "out", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, dir)
	code, out, errOut := run(t, "generate", dir)
	want := wantErrors
	wantCode := ExitFindings
	if strings.HasPrefix(want, "generator: ") {
		// Refused by the generator, not lint: a failure to run.
		want = "mrtrgen: " + filepath.Base(specPath) + ": " + want
		wantCode = ExitFailure
	}
	if code != wantCode {
		t.Errorf("exit %d, want %d", code, wantCode)
	}
	if out != "" {
		t.Errorf("stdout:\n%s", out)
	}
	if got := strings.ReplaceAll(errOut, prefix, ""); got != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, want)
	}
	sameTree(t, "a failed generate", before, snapshot(t, dir))
}

// goldenGenerated runs generate on a golden spec: it writes the golden
// files, saying so, with the golden warnings; a second run writes nothing,
// and check agrees.
func goldenGenerated(t *testing.T, caseDir, dir, specPath string, module []string) {
	prefix := filepath.ToSlash(dir) + "/"
	code, out, errOut := run(t, "generate", dir)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	wantWarnings, _ := os.ReadFile(filepath.Join(caseDir, "lint.txt"))
	if got := strings.ReplaceAll(errOut, prefix, ""); got != string(wantWarnings) {
		t.Errorf("stderr:\n%s\nwant:\n%s", got, wantWarnings)
	}
	got := snapshot(t, dir)
	delete(got, filepath.Base(specPath))
	for _, p := range module {
		delete(got, p)
	}
	want := snapshot(t, filepath.Join(caseDir, "want"))
	for p := range want {
		if _, ok := got[p]; !ok {
			t.Errorf("generate did not write %s", p)
		} else if !bytes.Equal(got[p].content, want[p].content) {
			t.Errorf("generate wrote %s unlike the golden file", p)
		}
		if !strings.Contains(out, "wrote   "+prefix+p+"\n") {
			t.Errorf("stdout does not say it wrote %s:\n%s", p, out)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("generate wrote %s, which the golden files lack", p)
		}
	}

	// Again: nothing to do, nothing written, and check agrees.
	before := snapshot(t, dir)
	code, out, errOut = run(t, "generate", dir)
	if code != ExitOK {
		t.Fatalf("second run: exit %d\n%s%s", code, out, errOut)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line != "" && !strings.HasPrefix(line, "kept    ") {
			t.Errorf("second run: %q", line)
		}
	}
	sameTree(t, "a second generate", before, snapshot(t, dir))
	if code, out, _ := run(t, "check", dir); code != ExitOK || out != "" {
		t.Errorf("check after generate: exit %d\n%s", code, out)
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The scaffold is written once and kept after that, and generate says so.
func TestGenerateKeepsScaffolds(t *testing.T) {
	dir := t.TempDir()
	specPath := filepath.Join(dir, "pair.mrtr.yaml")
	writeFile(t, specPath, testfiles.TwoTools)
	code, out, errOut := run(t, "generate", specPath)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	scaffold := filepath.Join(dir, "first_tool_handler.go")
	if !strings.Contains(out, "wrote   "+filepath.ToSlash(scaffold)+"\n") {
		t.Errorf("first run does not list the scaffold:\n%s", out)
	}
	writeFile(t, scaffold, "package pair\n\n// mine now\n")
	code, out, _ = run(t, "generate", specPath)
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out, "kept    "+filepath.ToSlash(scaffold)+" (yours; mrtrgen never overwrites it)\n") {
		t.Errorf("second run does not say it kept the scaffold:\n%s", out)
	}
	if b, _ := os.ReadFile(scaffold); string(b) != "package pair\n\n// mine now\n" {
		t.Errorf("the scaffold was overwritten:\n%s", b)
	}
	// Removing a tool deletes its generated files and says why; its
	// scaffold stays.
	first, _, ok := strings.Cut(testfiles.TwoTools, "  second_tool:")
	if !ok {
		t.Fatal("testfiles.TwoTools has no second_tool")
	}
	writeFile(t, specPath, first)
	code, out, _ = run(t, "generate", specPath)
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, name := range []string{"second_tool.mrtr.go", "second_tool.mrtr_test.go"} {
		want := "deleted " + filepath.ToSlash(filepath.Join(dir, name)) + " (its tool is no longer in " + filepath.ToSlash(specPath) + ")\n"
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "second_tool_handler.go")); err != nil {
		t.Errorf("the removed tool's scaffold is gone: %v", err)
	}
}

// check: 0 when current, 1 with a unified diff after a hand edit (or a
// missing or left-over file), 0 again after generate; it never writes.
// A sequence of edits and runs on one directory, each step depending on
// the one before: one function, told in order.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	specPath := filepath.Join(dir, "specs", "pair.mrtr.yaml")
	writeFile(t, specPath, "output: ../gen\n"+testfiles.TwoTools)
	gen := filepath.Join(dir, "gen")

	// Nothing generated yet: stale, and check writes nothing. It says to
	// regenerate with go run ../../cmd/mrtrgen: the test runs in this
	// package's directory, in mrtrgen's repository.
	before := snapshot(t, dir)
	code, out, errOut := run(t, "check", specPath)
	if code != ExitFindings {
		t.Errorf("check before generate: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "(missing)") || !strings.Contains(errOut, "out of date; run go run ../../cmd/mrtrgen generate "+specPath) {
		t.Errorf("check before generate:\nstdout:\n%s\nstderr:\n%s", out, errOut)
	}
	sameTree(t, "check", before, snapshot(t, dir))

	if code, out, errOut := run(t, "generate", specPath); code != ExitOK {
		t.Fatalf("generate: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := run(t, "check", specPath); code != ExitOK || out != "" || errOut != "" {
		t.Fatalf("check after generate: exit %d\n%s%s", code, out, errOut)
	}
	// From the spec's directory, by a relative path, too.
	t.Chdir(filepath.Dir(specPath))
	if code, out, _ := run(t, "check", "."); code != ExitOK {
		t.Fatalf("check . in the spec's directory: exit %d\n%s", code, out)
	}

	// A hand edit of a generated file.
	target := filepath.Join(gen, "first_tool.mrtr.go")
	orig, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(orig), `return "one"`, `return "uno"`, 1)
	if edited == string(orig) {
		t.Fatal("nothing to edit")
	}
	writeFile(t, target, edited)
	// A scaffold edit is the user's business.
	writeFile(t, filepath.Join(gen, "first_tool_handler.go"), "package pair\n")
	// A left-over file of a tool this spec no longer has.
	leftover := filepath.Join(gen, "gone_tool.mrtr.go")
	writeFile(t, leftover, "// "+generator.Header+"\n// source: ../specs/pair.mrtr.yaml\n\npackage pair\n")

	before = snapshot(t, dir)
	code, out, errOut = run(t, "check", specPath)
	if code != ExitFindings {
		t.Errorf("check after a hand edit: exit %d", code)
	}
	lines := strings.Split(out, "\n")
	for _, want := range []string{
		"--- " + filepath.ToSlash(target) + " (on disk)",
		"+++ " + filepath.ToSlash(target) + " (generated)",
		`-	return "uno"`,
		`+	return "one"`,
		"--- " + filepath.ToSlash(leftover) + " (on disk)",
		"+++ " + filepath.ToSlash(leftover) + " (no longer generated)",
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("the diff lacks the line %q:\n%s", want, out)
		}
	}
	if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "@@ -") }) {
		t.Errorf("no hunk header in the diff:\n%s", out)
	}
	if strings.Contains(out, "first_tool_handler.go") {
		t.Errorf("check reports the edited scaffold:\n%s", out)
	}
	if !strings.Contains(errOut, "mrtrgen: 2 generated file(s) out of date; run mrtrgen generate "+specPath) {
		t.Errorf("stderr: %s", errOut)
	}
	sameTree(t, "check", before, snapshot(t, dir))

	if code, out, errOut := run(t, "generate", specPath); code != ExitOK {
		t.Fatalf("generate: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := run(t, "check", specPath); code != ExitOK || out != "" {
		t.Fatalf("check after regenerating: exit %d\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(gen, "first_tool_handler.go")); string(b) != "package pair\n" {
		t.Errorf("generate overwrote the edited scaffold")
	}
}
