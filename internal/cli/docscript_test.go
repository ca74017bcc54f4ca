package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mrtrgen/mrtrgen/internal/modcache"
)

// The documents are scripts: every command block of README.md and
// docs/*.md is run by one of the tests below, as a reader types it, or is
// marked with the reason it is not (issue 28 item 3). docblocks_test.go
// turns a document into a testscript.

// docPart is a document a doc test runs, or a step between documents.
type docPart struct {
	doc string // from the repository root
	// dir is where the document's commands start, under $WORK.
	dir string
	// setup is testscript lines run before the document: what the reader's
	// machine has that the documents do not create.
	setup string
}

// readmeLayout is the README's "In your own module" (a module tickets/
// next to the clone of mrtrgen) and then the guides that work in such a
// module, in it. The guides on CI, deploys and hooks compare with the
// branch a change merges into: the reader's module is a Git repository
// whose remote origin has main (setup).
var readmeLayout = []docPart{
	{doc: "README.md"},
	{dir: "tickets", setup: `exec git init -q -b main
exec git add -A
exec git commit -q -m 'tickets: the generated tools'
exec git clone -q --bare . $WORK/origin.git
exec git remote add origin $WORK/origin.git
exec git fetch -q origin`},
	{doc: "docs/editor.md", dir: "tickets"},
	{doc: "docs/graph.md", dir: "tickets"},
	{doc: "docs/go-generate.md", dir: "tickets"},
	{doc: "docs/evolution.md", dir: "tickets"},
	{doc: "docs/ci.md", dir: "tickets"},
	{doc: "docs/deploy.md", dir: "tickets"},
	{doc: "docs/pre-commit.md", dir: "tickets"},
	// Last: its example adds a package to the module the guides before
	// it generate, check and compare.
	{doc: "docs/spec.md", dir: "tickets"},
}

var walkthroughLayout = []docPart{{doc: "docs/walkthrough.md"}}

// notRun are the command blocks no doc test runs, by document and section
// ("" for the whole document), with the reason; the tests log them.
var notRun = []struct{ doc, section, reason string }{
	{"README.md", "## Two commands", "the example server: -dev and the two instances serve until stopped, and go test ./... is the whole repository's suite (docs/benchmarks.md times it)"},
	{"docs/benchmarks.md", "", "measurements: each runs for minutes on a quiet machine, and the figures beside it are what it printed"},
}

// TestWalkthrough follows docs/walkthrough.md step by step in a fresh Go
// module: the document is the script. It builds and tests a module, so
// -short skips it.
func TestWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests a Go module; skipped with -short")
	}
	// Its last section completes a workflow over HTTP with bash, curl and jq.
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("the walkthrough needs %s, which is not on PATH", tool)
			}
			t.Skipf("the walkthrough needs %s, which is not on PATH (install it to run this test)", tool)
		}
	}
	runDocs(t, "walkthrough", walkthroughLayout)
}

// TestQuickStart runs the README's "In your own module" in a new module
// outside the repository (through a replace to this checkout, where the
// README has the reader clone it): mrtrgen as a tool, a starter spec,
// go generate, go mod tidy and go test, by the README's own commands; then,
// in that module, every command of the guides for it: the editor's schema,
// the diagrams, go generate, the CI workflows, the deploy check and the
// pre-commit hooks. One module serves them all, as it serves a reader.
func TestQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests a Go module; skipped with -short")
	}
	runDocs(t, "quickstart", readmeLayout)
}

// Every command block of README.md and docs/*.md runs in a doc test or is
// marked with the reason it does not; the count of each is logged.
func TestDocCommandBlocks(t *testing.T) {
	root := repoRoot(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"))
	var run []string
	for _, p := range append(slices.Clone(readmeLayout), walkthroughLayout...) {
		if p.doc != "" {
			run = append(run, p.doc)
		}
	}
	for _, p := range pages {
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		text, stats := docText(t, rel)
		var d docScript
		got, err := d.add(rel, text)
		if err != nil {
			t.Error(err)
			continue
		}
		got.merge(stats)
		if !slices.Contains(run, rel) && got.run > 0 {
			t.Errorf("%s has %d command blocks no doc test runs: add the page to a layout of docscript_test.go, or mark each <!-- skip: WHY -->", rel, got.run)
		}
		if got.run+len(got.skipped) > 0 {
			t.Logf("%s: %s", rel, got)
		}
	}
}

// docText reads a document without its sections in notRun, and counts
// their command blocks as skipped.
func docText(t *testing.T, doc string) (string, *blockStats) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(doc)))
	if err != nil {
		t.Fatal(err)
	}
	text, stats := string(b), &blockStats{}
	for _, n := range notRun {
		if n.doc != doc {
			continue
		}
		cut := text
		if n.section != "" {
			before, after, ok := strings.Cut(text, "\n"+n.section+"\n")
			if !ok {
				t.Fatalf("%s has no %q section (notRun in docscript_test.go)", doc, n.section)
			}
			level := n.section[:strings.IndexByte(n.section, ' ')+1]
			rest := ""
			if i := strings.Index(after, "\n"+level); i >= 0 {
				after, rest = after[:i], after[i:]
			}
			// Blank lines in its place keep the line numbers of errors.
			cut, text = after, before+"\n"+n.section+strings.Repeat("\n", strings.Count(after, "\n")+1)+rest
		} else {
			text = ""
		}
		blocks := 0
		lines := strings.Split(cut, "\n")
		for i, l := range lines {
			if indentedCommand.MatchString(l) && (i == 0 || strings.TrimSpace(lines[i-1]) == "") {
				blocks++
			}
			if m := fence.FindStringSubmatch(l); m != nil && slices.Contains(commandLangs, m[2]) {
				blocks++
			}
		}
		for range blocks {
			stats.skip(n.reason)
		}
	}
	return text, stats
}

func (s *blockStats) merge(o *blockStats) {
	for r, n := range o.skipped {
		for range n {
			s.skip(r)
		}
	}
}

// runDocs runs the documents of a layout as one testscript in a fresh
// directory, offline, from the caches of this machine, as a reader's
// shell would: no GOFLAGS, and mrtrgen on PATH only once the document has
// installed it (go install puts it in $GOPATH/bin, which a Go user has on
// PATH).
func runDocs(t *testing.T, name string, layout []docPart) {
	root := repoRoot(t)
	var d docScript
	for _, p := range layout {
		if p.dir != "" {
			d.script.WriteString("\ncd $WORK/" + p.dir + "\n")
		}
		if p.setup != "" {
			d.script.WriteString(p.setup + "\n")
		}
		if p.doc == "" {
			continue
		}
		text, skipped := docText(t, p.doc)
		stats, err := d.add(p.doc, text)
		if err != nil {
			t.Fatal(err)
		}
		stats.merge(skipped)
		t.Logf("%s: %s", p.doc, stats)
		for tool := range stats.needs {
			if _, err := exec.LookPath(tool); err != nil {
				t.Logf("%s: %s is not installed: its blocks are skipped here", p.doc, tool)
			}
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name+".txtar"), []byte(d.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// The script's go commands run with GOPROXY=off: fill the module
	// cache first (a no-op on a warm cache; with the caller's GOPROXY on
	// a cold one), or a fresh machine fails on the first go get.
	if err := modcache.Download(root); err != nil {
		t.Fatal(err)
	}
	gocache, gomodcache := goEnv(t, "GOCACHE"), goEnv(t, "GOMODCACHE")
	testscript.Run(t, testscript.Params{
		Dir:  dir,
		Cmds: scriptCmds,
		Setup: func(env *testscript.Env) error {
			if err := scriptSetup(root)(env); err != nil {
				return err
			}
			// The module builds offline from the caches of this machine.
			env.Setenv("GOCACHE", gocache)
			env.Setenv("GOMODCACHE", gomodcache)
			gopath := filepath.Join(env.WorkDir, ".gopath")
			env.Setenv("GOPATH", gopath)
			env.Setenv("GOPROXY", "off")
			env.Setenv("GOFLAGS", "")
			env.Setenv("GOWORK", "off")
			env.Setenv("GOTOOLCHAIN", "local")
			env.Setenv("GOSUMDB", "off")
			// testscript puts this test binary on PATH as mrtrgen; a
			// reader has only what the document installs.
			var path []string
			for _, p := range filepath.SplitList(env.Getenv("PATH")) {
				if !strings.Contains(p, "testscript-main") {
					path = append(path, p)
				}
			}
			env.Setenv("PATH", strings.Join(append([]string{filepath.Join(gopath, "bin")}, path...), string(filepath.ListSeparator)))
			// A configured Git, as the reader's.
			for k, v := range map[string]string{
				"GIT_AUTHOR_NAME": "Reader", "GIT_AUTHOR_EMAIL": "reader@example.com",
				"GIT_COMMITTER_NAME": "Reader", "GIT_COMMITTER_EMAIL": "reader@example.com",
				"GIT_CONFIG_NOSYSTEM": "1",
			} {
				env.Setenv(k, v)
			}
			return nil
		},
	})
}

func goEnv(t *testing.T, key string) string {
	t.Helper()
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", key, err)
	}
	return strings.TrimSpace(string(out))
}

func init() {
	// contains FILE TEXTFILE fails unless FILE holds the text of TEXTFILE.
	scriptCmds["contains"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: contains FILE TEXTFILE")
		}
		got, want := ts.ReadFile(args[0]), strings.TrimSuffix(ts.ReadFile(args[1]), "\n")
		if strings.Contains(got, want) == neg {
			ts.Fatalf("%s does not hold:\n%s", args[0], want)
		}
	}
}
