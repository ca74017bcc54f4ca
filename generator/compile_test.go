package generator_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/generator"
	"github.com/mrtrgen/mrtrgen/internal/modcache"
)

// TestGoldenCompile proves the golden files (and the generation of every
// example spec) are Go that builds, vets clean and passes its own
// generated test suite, with the scaffolds exactly as written: it copies
// them into one temporary module, one package per case, that uses this
// checkout of mrtrgen through a replace directive, and runs one go vet and
// one go test over it.
func TestGoldenCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping go vet and go test of the golden files in a temporary module")
	}
	// go test puts its own GOROOT/bin first on the test's PATH.
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	// Its go commands run with GOPROXY=off (moduleEnv): fill the module
	// cache first, a no-op when it is warm.
	if err := modcache.Download(root); err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	writeModule(t, root, mod)

	pkgs := 0
	for _, c := range goldenCases(t) {
		files := readTree(t, filepath.Join(c.dir, "want"))
		if files == nil {
			continue // an error case: nothing is generated
		}
		for p, b := range readTree(t, filepath.Join(c.dir, "extra")) {
			files[p] = b // hand-written tests of the generated code
		}
		writeTree(t, filepath.Join(mod, "golden", c.name), scaffoldsOnFake(files))
		pkgs++
	}
	examples, err := filepath.Glob(filepath.Join(root, "examples", "specs", "*.mrtr.yaml"))
	if err != nil || len(examples) == 0 {
		t.Fatalf("no example specs: %v", err)
	}
	for _, p := range examples {
		f, ds := loadAndLint(t, p)
		if ds.HasErrors() {
			t.Fatalf("%s has lint errors:\n%s", p, lintText(t, ds))
		}
		generated, err := generator.Generate(f, generator.Options{SpecPath: p})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		files := map[string][]byte{}
		for _, g := range generated {
			files[g.Path] = g.Content
		}
		name := strings.TrimSuffix(filepath.Base(p), ".mrtr.yaml")
		writeTree(t, filepath.Join(mod, "examples", name), scaffoldsOnFake(files))
		pkgs++
	}

	run := func(args ...string) {
		t.Helper()
		start := time.Now()
		cmd := exec.Command(goBin, args...)
		cmd.Dir = mod
		cmd.Env = moduleEnv()
		out, err := cmd.CombinedOutput()
		t.Logf("go %s: %d packages in %v", strings.Join(args, " "), pkgs, time.Since(start).Round(time.Millisecond))
		if err != nil {
			t.Fatalf("go %s in the golden module failed: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("vet", "./...")
	run("test", "-count=1", "./...")
}

// scaffoldNew is how a scaffolded handler test builds its harness.
var scaffoldNew = regexp.MustCompile(`mrtrtest\.New\(t, (New\w+Program)\(&(\w+)Impl\{\}\)\)`)

// scaffoldsOnFake makes the driven workflow of each scaffolded handler test
// (its first test; the matrix stays skipped, its fixtures lack the fake's
// knobs) run on the generated fake instead of the scaffold's handler, which
// refuses everything: the questions it expects, the typed answers it sends
// and the end it wants must be those of the workflow.
func scaffoldsOnFake(files map[string][]byte) map[string][]byte {
	skip := fmt.Sprintf("\tt.Skip(%q)\n", generator.ScaffoldTestSkip)
	for p, b := range files {
		if !strings.HasSuffix(p, "_handler_test.go") || !bytes.Contains(b, []byte(skip)) {
			continue
		}
		b = scaffoldNew.ReplaceAll(b, []byte("mrtrtest.New(t, $1(&fake$2{}))"))
		files[p] = bytes.Replace(b, []byte(skip), nil, 1)
	}
	return files
}

// writeModule writes go.mod and go.sum of the temporary module: it
// requires what this module requires, at the same versions, and replaces
// mrtrgen with this checkout.
func writeModule(t *testing.T, root, dir string) {
	t.Helper()
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("module mrtrgen.test/golden\n\n")
	if m := regexp.MustCompile(`(?m)^go .*$`).Find(gomod); m != nil {
		fmt.Fprintf(&b, "%s\n\n", m)
	}
	b.WriteString("require github.com/mrtrgen/mrtrgen v0.0.0-00010101000000-000000000000\n\n")
	for _, r := range requires(gomod) {
		fmt.Fprintf(&b, "require %s\n", r)
	}
	fmt.Fprintf(&b, "\nreplace github.com/mrtrgen/mrtrgen => %s\n", filepath.ToSlash(root))
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), gosum, 0o644); err != nil {
		t.Fatal(err)
	}
}

// requires lists the "path version" requirements of a go.mod file.
func requires(gomod []byte) []string {
	var out []string
	inBlock := false
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case line == "require (":
			inBlock = true
		case inBlock && line == ")":
			inBlock = false
		case inBlock && line != "":
			out = append(out, line)
		case strings.HasPrefix(line, "require ") && !strings.HasSuffix(line, "("):
			out = append(out, strings.TrimSpace(strings.TrimPrefix(line, "require ")))
		}
	}
	return out
}

// moduleEnv is the environment of the go commands run in the temporary
// module: this one's (same module cache, build cache and GOFLAGS), with
// -mod=mod (its go.mod is written, not tidied), without a workspace, and
// with GOPROXY=off: everything it needs is in the module cache already
// (modcache.Download, go mod download of this module), and a lookup that would go to the
// network fails at once instead of slowing the test down.
func moduleEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GOFLAGS=") || strings.HasPrefix(kv, "GOWORK=") || strings.HasPrefix(kv, "GOPROXY=") {
			continue
		}
		env = append(env, kv)
	}
	var flags []string
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if !strings.HasPrefix(f, "-mod=") {
			flags = append(flags, f)
		}
	}
	flags = append(flags, "-mod=mod")
	return append(env, "GOFLAGS="+strings.Join(flags, " "), "GOWORK=off", "GOPROXY=off")
}
