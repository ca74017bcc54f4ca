package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mrtrgen/mrtrgen/internal/modcache"
)

// Script tests: testdata/script/*.txtar drive the mrtrgen command line the
// way a user does, checking stdout, stderr and the exit code of every
// command. "mrtrgen" in a script is this test binary running Main, so the
// scripts test the code in this package, not an installed binary.

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"mrtrgen": func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// repoRoot is the module root (two levels up from this package).
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// scriptCmds are the commands the scripts have beyond testscript's own.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// exits N COMMAND [ARGS...] runs the command and fails unless it exits
	// with status N; stdout and stderr are kept for the checks after it.
	"exits": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 2 {
			ts.Fatalf("usage: exits N command [args...]")
		}
		want, err := strconv.Atoi(args[0])
		if err != nil {
			ts.Fatalf("exits: %v", err)
		}
		got := 0
		if err := ts.Exec(args[1], args[2:]...); err != nil {
			var xe *exec.ExitError
			if !errors.As(err, &xe) {
				ts.Fatalf("exits: %v", err)
			}
			got = xe.ExitCode()
		}
		if got != want {
			ts.Fatalf("%s exited with status %d, want %d", strings.Join(args[1:], " "), got, want)
		}
	},
	// lines FILE N fails unless FILE (stdout or stderr for the last
	// command's) has N lines.
	"lines": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: lines FILE N")
		}
		want, err := strconv.Atoi(args[1])
		if err != nil {
			ts.Fatalf("lines: %v", err)
		}
		text := ts.ReadFile(args[0])
		got := strings.Count(text, "\n")
		if (got == want) == neg {
			ts.Fatalf("%s has %d lines, want %s%d", args[0], got, map[bool]string{true: "not ", false: ""}[neg], want)
		}
	},
}

func scriptSetup(root string) func(*testscript.Env) error {
	return func(env *testscript.Env) error {
		env.Setenv("REPO", root)
		// The CLI writes no colour, whatever the terminal; scripts run
		// without one anyway.
		env.Setenv("NO_COLOR", "1")
		return nil
	}
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                "testdata/script",
		Setup:              scriptSetup(repoRoot(t)),
		Cmds:               scriptCmds,
		RequireUniqueNames: true,
		UpdateScripts:      os.Getenv("UPDATE_SCRIPTS") != "",
	})
}

// docs/lint.md is the output of mrtrgen explain --format markdown, so the
// rules table and the long forms cannot drift from the registry.
func TestLintDoc(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "lint.md"))
	if err != nil {
		t.Fatal(err)
	}
	code, got, errOut := run(t, "explain", "--format", "markdown")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got != string(want) {
		t.Errorf("docs/lint.md is stale; regenerate it with\n\tgo run ./cmd/mrtrgen explain --format markdown > docs/lint.md")
	}
}

// docs/breaking.md is the output of mrtrgen explain --breaking --format
// markdown, in the same way.
func TestBreakingDoc(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "breaking.md"))
	if err != nil {
		t.Fatal(err)
	}
	code, got, errOut := run(t, "explain", "--breaking", "--format", "markdown")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got != string(want) {
		t.Errorf("docs/breaking.md is stale; regenerate it with\n\tgo run ./cmd/mrtrgen explain --breaking --format markdown > docs/breaking.md")
	}
}

// Every command's --help shows examples.
func TestHelpExamples(t *testing.T) {
	root := newRoot(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if c.Name() == "version" && c.Example == "" {
			// version.go is owned elsewhere; its help has no example yet.
			t.Logf("%s has no examples", c.Name())
			continue
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("mrtrgen %s --help has no examples", c.Name())
		}
	}
}

// TestWalkthrough follows docs/walkthrough.md step by step in a fresh Go
// module: the document is the script. Shell blocks (```console, lines
// starting with "$ ") are run, in order; the output shown under a command
// of mrtrgen is what it must print; a block preceded by
// <!-- file: PATH --> is written to PATH; a block preceded by
// <!-- stdout --> is exactly what the command before it printed (for output
// too long to show in the console block); <!-- script: LINE --> runs a
// testscript line the reader does not need to see (the replace directive
// pointing at this repository instead of a download); <!-- skip --> skips
// the next block. It builds and tests a module, so -short skips it.
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
	runDocScript(t, "walkthrough", filepath.Join("docs", "walkthrough.md"), "", "-mod=mod")
}

// TestQuickStart runs the README's "In your own module" section the same
// way: a new module outside the repository gets mrtrgen as a tool (through
// a replace to this checkout, where the README has the reader clone it),
// writes a starter spec, generates from go generate, tidies and passes its
// tests, by the README's own commands.
func TestQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests a Go module; skipped with -short")
	}
	// No -mod=mod: go mod tidy has to be what makes go test work, as the
	// README says.
	runDocScript(t, "quickstart", "README.md", "## In your own module", "")
}

// runDocScript runs a document (the part of it under heading section,
// up to the next heading of that level, when section is set) as a
// testscript in a fresh directory, offline, from the caches of this
// machine, with GOFLAGS=goflags.
func runDocScript(t *testing.T, name, doc, section, goflags string) {
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, doc))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if section != "" {
		_, after, ok := strings.Cut(text, "\n"+section+"\n")
		if !ok {
			t.Fatalf("%s has no %q section", doc, section)
		}
		level := section[:strings.IndexByte(section, ' ')+1]
		if i := strings.Index(after, "\n"+level); i >= 0 {
			after = after[:i]
		}
		text = after
	}
	script, err := walkthroughScript(text)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name+".txtar"), []byte(script), 0o644); err != nil {
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
			env.Setenv("GOPATH", filepath.Join(env.WorkDir, ".gopath"))
			env.Setenv("GOPROXY", "off")
			env.Setenv("GOFLAGS", goflags)
			env.Setenv("GOWORK", "off")
			env.Setenv("GOTOOLCHAIN", "local")
			env.Setenv("GOSUMDB", "off")
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

var (
	fileMarker   = regexp.MustCompile(`^<!-- file: (\S+) -->$`)
	scriptMarker = regexp.MustCompile(`^<!-- script: (.+) -->$`)
	skipMarker   = "<!-- skip -->"
	stdoutMarker = "<!-- stdout -->"
	bashMarker   = "<!-- bash -->"
	fence        = regexp.MustCompile("^```([a-z]*)$")
)

// walkthroughScript turns the walkthrough into a testscript.
func walkthroughScript(doc string) (string, error) {
	var script, archive strings.Builder
	lines := strings.Split(doc, "\n")
	pendingFile, skip, wantStdout, bash := "", false, false, false
	nfiles, ncommands := 0, 0
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := fileMarker.FindStringSubmatch(l); m != nil {
			pendingFile = m[1]
			continue
		}
		if m := scriptMarker.FindStringSubmatch(l); m != nil {
			fmt.Fprintf(&script, "%s\n", m[1])
			continue
		}
		if l == skipMarker {
			skip = true
			continue
		}
		if l == stdoutMarker {
			wantStdout = true
			continue
		}
		if l == bashMarker {
			bash = true
			continue
		}
		if h, ok := strings.CutPrefix(l, "## "); ok {
			// Sections become comments: testscript logs each one's time.
			fmt.Fprintf(&script, "\n# %s\n", h)
			continue
		}
		m := fence.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		// A fenced block: collect it.
		var body []string
		i++
		for ; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		if i == len(lines) {
			return "", fmt.Errorf("walkthrough: unterminated code block")
		}
		switch {
		case skip:
			skip = false
		case wantStdout:
			nfiles++
			staged := fmt.Sprintf(".walkthrough/%d/stdout", nfiles)
			fmt.Fprintf(&archive, "-- %s --\n%s\n", staged, strings.Join(body, "\n"))
			fmt.Fprintf(&script, "cmp stdout $WORK/%s\n", staged)
			wantStdout = false
		case bash:
			// A script the reader pastes into bash: it runs as one, and
			// only has to succeed, unless a <!-- stdout --> block follows.
			nfiles++
			staged := fmt.Sprintf(".walkthrough/%d/script.bash", nfiles)
			fmt.Fprintf(&archive, "-- %s --\nset -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n%s\n", staged, strings.Join(body, "\n"))
			fmt.Fprintf(&script, "exec bash $WORK/%s\n", staged)
			bash = false
		case pendingFile != "":
			nfiles++
			staged := fmt.Sprintf(".walkthrough/%d/%s", nfiles, pendingFile)
			fmt.Fprintf(&archive, "-- %s --\n%s\n", staged, strings.Join(body, "\n"))
			fmt.Fprintf(&script, "cp $WORK/%s %s\n", staged, pendingFile)
			pendingFile = ""
		case m[1] == "console":
			if err := consoleBlock(&script, body, stdoutFollows(lines[i+1:])); err != nil {
				return "", err
			}
			ncommands++
		}
	}
	if nfiles == 0 || ncommands == 0 {
		return "", fmt.Errorf("walkthrough: found %d files and %d command blocks", nfiles, ncommands)
	}
	return script.String() + archive.String(), nil
}

// stdoutFollows reports whether the next marker or block after a console
// block is <!-- stdout -->.
func stdoutFollows(rest []string) bool {
	for _, l := range rest {
		switch {
		case l == stdoutMarker:
			return true
		case strings.HasPrefix(l, "<!--") || fence.MatchString(l):
			return false
		}
	}
	return false
}

// consoleBlock translates "$ command" lines and the output shown under
// them. Commands other than mrtrgen (go, mkdir, cd) only have to succeed:
// their output depends on the machine. When a <!-- stdout --> block
// follows, it holds the last command's output instead.
func consoleBlock(script *strings.Builder, body []string, stdoutBlock bool) error {
	var cmd []string
	var out []string
	last := -1
	for i, l := range body {
		if strings.HasPrefix(l, "$ ") {
			last = i
		}
	}
	lastCmd := false
	flush := func() {
		if cmd == nil {
			return
		}
		switch cmd[0] {
		case "cd":
			fmt.Fprintf(script, "cd %s\n", strings.Join(cmd[1:], " "))
		case "mkdir":
			args := cmd[1:]
			if len(args) > 0 && args[0] == "-p" {
				args = args[1:]
			}
			fmt.Fprintf(script, "mkdir %s\n", strings.Join(args, " "))
		case "mrtrgen":
			fmt.Fprintf(script, "exec %s\n", strings.Join(cmd, " "))
			if len(out) == 0 && !(lastCmd && stdoutBlock) {
				script.WriteString("! stdout .\n")
			}
			for _, o := range out {
				fmt.Fprintf(script, "stdout '^%s$'\n", strings.ReplaceAll(regexp.QuoteMeta(o), "'", "''"))
			}
		default:
			fmt.Fprintf(script, "exec %s\n", strings.Join(cmd, " "))
		}
		cmd, out = nil, nil
	}
	for i, l := range body {
		if rest, ok := strings.CutPrefix(l, "$ "); ok {
			flush()
			cmd = strings.Fields(rest)
			lastCmd = i == last
			continue
		}
		if cmd == nil {
			return fmt.Errorf("walkthrough: output before any command: %q", l)
		}
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	flush()
	return nil
}
