package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// gitRepo makes a git work tree in a temporary directory, with the example
// tickets spec committed at specs/tickets.mrtr.yaml, and changes into it.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("HOME", dir) // no user configuration
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "specs", "tickets.mrtr.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "specs", "tickets.mrtr.yaml"), string(data))
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", ".")
	git(t, dir, "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "tickets")
	t.Chdir(dir)
	return dir
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// edit replaces from by to in the file at p, which must contain it.
func edit(t *testing.T, p, from, to string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), from) {
		t.Fatalf("%s has no %q", p, from)
	}
	writeFile(t, p, strings.Replace(string(b), from, to, 1))
}

// mrtrgen breaking against a revision of a real git work tree: nothing
// when nothing changed; each finding at its position in every format,
// with exit 1; accepts on the command line and in the spec; --fail-on;
// deleted and new specs; and exit 2 for what it cannot compare.
func TestBreakingCommand(t *testing.T) {
	gitRepo(t)
	const p = "specs/tickets.mrtr.yaml"
	for _, args := range [][]string{{p}, {"specs"}, {}} {
		code, out, errOut := run(t, append([]string{"breaking", "--against", "HEAD"}, args...)...)
		if code != ExitOK || out != "" || errOut != "" {
			t.Errorf("unchanged %v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}

	// Narrow the argument (clients and waiting workflows) and a carried
	// continuation field, and make the effect irreversible (a warning).
	edit(t, p, "        maxLength: 12\n", "        maxLength: 10\n")
	edit(t, p, "          maxLength: 120\n", "          maxLength: 80\n")
	edit(t, p, "        effect: closeTicket\n", "        effect: closeTicket\n        irreversible: true\n")
	want := `specs/tickets.mrtr.yaml:20:7: error: argument "ticketId" of tool "close_support_ticket" narrowed: maxLength 12 → 10: a workflow waiting for its next round is refused, its arguments no longer bind to its token (binding) [argument-changed]
specs/tickets.mrtr.yaml:20:7: error: argument "ticketId" of tool "close_support_ticket" narrowed: maxLength 12 → 10: values clients could send before are refused (invalid arguments) [argument-narrowed]
specs/tickets.mrtr.yaml:29:9: error: continuation field "subject" narrowed (maxLength 120 → 80): a waiting workflow whose carried value fails it is refused (constraint_narrowed) [constraint-narrowed]
specs/tickets.mrtr.yaml:60:7: warning: effect "close" is now irreversible: what was approved as undoable no longer is [effect-made-irreversible]
`
	code, out, errOut := run(t, "breaking", "--against", "HEAD", "specs")
	if code != ExitFindings || out != want || errOut != "" {
		t.Errorf("text: exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, errOut, out, want)
	}

	code, out, _ = run(t, "breaking", "--against", "HEAD", "--format", "json", p)
	var js []struct {
		Path, Severity, Category, Rule, Message string
		Line, Column                            int
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil || code != ExitFindings || len(js) != 4 {
		t.Fatalf("json: exit %d, %v:\n%s", code, err, out)
	}
	if j := js[2]; j.Path != p || j.Line != 29 || j.Column != 9 || j.Rule != "constraint-narrowed" || j.Category != "continuation" || j.Severity != "error" {
		t.Errorf("json finding: %+v", j)
	}
	if j := js[1]; j.Rule != "argument-narrowed" || j.Category != "client" {
		t.Errorf("json finding: %+v", j)
	}

	code, out, _ = run(t, "breaking", "--against", "HEAD", "--format", "github", p)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != ExitFindings || len(lines) != 4 ||
		!strings.HasPrefix(lines[0], "::error file=specs/tickets.mrtr.yaml,line=20,col=7,title=mrtrgen breaking argument-changed (continuation)::argument ") ||
		!strings.HasPrefix(lines[3], "::warning file=specs/tickets.mrtr.yaml,line=60,col=7,title=mrtrgen breaking effect-made-irreversible (behaviour)::") {
		t.Errorf("github: exit %d:\n%s", code, out)
	}

	// Accepted for this run, the errors go; the warning stays and fails
	// only with --fail-on warning.
	accept := []string{"breaking", "--against", "HEAD", "--accept", "argument-changed", "--accept", "argument-narrowed", "--accept", "constraint-narrowed", p}
	code, out, _ = run(t, accept...)
	if code != ExitOK || strings.Count(out, "\n") != 1 || !strings.Contains(out, "[effect-made-irreversible]") {
		t.Errorf("accepted: exit %d:\n%s", code, out)
	}
	if code, _, _ = run(t, append(accept, "--fail-on", "warning")...); code != ExitFindings {
		t.Errorf("--fail-on warning: exit %d", code)
	}

	// Accepted in the spec, at the argument, with a reason.
	edit(t, p, "        maxLength: 10\n", "        maxLength: 10\n        lint:\n          ignore:\n            argument-narrowed: Clients were told in release notes 4.2.\n")
	_, out, _ = run(t, "breaking", "--against", "HEAD", p)
	if strings.Contains(out, "[argument-narrowed]") || !strings.Contains(out, "[argument-changed]") {
		t.Errorf("accept in the spec:\n%s", out)
	}

	// A spec that does not load, at HEAD: exit 2, saying where.
	edit(t, p, "version: 1\n", "version: [1\n")
	code, out, errOut = run(t, "breaking", "--against", "HEAD", p)
	if code != ExitFailure || out != "" || !strings.Contains(errOut, "specs/tickets.mrtr.yaml does not load") || !strings.Contains(errOut, "specs/tickets.mrtr.yaml:6:") {
		t.Errorf("unloadable: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}

	// Deleted: its tool is gone, reported at the old position.
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "breaking", "--against", "HEAD", "specs")
	if code != ExitFindings || !strings.HasPrefix(out, "specs/tickets.mrtr.yaml@HEAD:16:3: error: tool \"close_support_ticket\" is gone (the spec was deleted)") {
		t.Errorf("deleted: exit %d:\n%s", code, out)
	}
	if code, out, _ = run(t, "breaking", "--against", "HEAD", p); code != ExitFindings || !strings.Contains(out, "[tool-removed]") {
		t.Errorf("deleted, named: exit %d:\n%s", code, out)
	}

	// A new spec has nothing to break.
	writeFile(t, "specs/new.mrtr.yaml", "version: 1\npackage: x\ntools:\n  a: {description: A., initial: done, states: {done: {terminal: success, message: Done.}}}\n")
	if code, out, _ = run(t, "breaking", "--against", "HEAD", "specs/new.mrtr.yaml"); code != ExitOK || out != "" {
		t.Errorf("new spec: exit %d:\n%s", code, out)
	}

	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"breaking", "--against", "no-such-branch", "specs"}, `unknown revision "no-such-branch"`},
		{[]string{"breaking", "specs"}, "--against REV is required"},
		{[]string{"breaking", "--against", "HEAD", "--format", "sarif", "specs"}, `unknown --format "sarif"`},
		{[]string{"breaking", "--against", "HEAD", "--fail-on", "never", "specs"}, "--fail-on: unknown severity"},
		{[]string{"breaking", "--against", "HEAD", "--accept", "state-remove", "specs"}, `--accept: no breaking rule "state-remove"; did you mean state-removed or gate-removed?`},
		{[]string{"breaking", "--against", "HEAD", "specs/none.mrtr.yaml"}, "specs/none.mrtr.yaml: no such file in the work tree or at HEAD"},
	} {
		code, _, errOut := run(t, tc.args...)
		if code != ExitFailure || !strings.Contains(errOut, tc.err) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errOut, tc.err)
		}
	}
}

// Outside a git work tree there is nothing to compare with.
func TestBreakingOutsideGit(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	writeFile(t, filepath.Join(dir, "a.mrtr.yaml"), "version: 1\npackage: x\n")
	code, _, errOut := run(t, "breaking", "--against", "HEAD", filepath.Join(dir, "a.mrtr.yaml"))
	if code != ExitFailure || !strings.Contains(errOut, "is not in a git work tree") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// The mrtrgen breaking commands the docs show run as written, in a clone
// with an origin whose main branch is the deployed version (after the
// documented git fetch origin main): unchanged specs, so exit 0.
func TestDocumentedBreakingCommands(t *testing.T) {
	root := repoRoot(t) // before gitRepo changes into its directory
	dir := gitRepo(t)
	origin := filepath.Join(t.TempDir(), "origin.git")
	git(t, dir, "clone", "-q", "--bare", dir, origin)
	git(t, dir, "remote", "add", "origin", origin)
	git(t, dir, "fetch", "-q", "origin", "main")
	cmdRE := regexp.MustCompile("(?:go tool )?mrtrgen breaking [^\n`|]*")
	placeholder := regexp.MustCompile(`^[A-Z][A-Z.]*$`)
	ran := 0
	for _, doc := range []string{"ci.md", "deploy.md", "pre-commit.md", "breaking.md"} {
		b, err := os.ReadFile(filepath.Join(root, "docs", doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range cmdRE.FindAllString(string(b), -1) {
			line, _, _ := strings.Cut(m, " #")
			line = strings.ReplaceAll(line, "${{ github.base_ref }}", "main")
			args := strings.Fields(strings.TrimPrefix(line, "go tool "))[1:]
			if slices.ContainsFunc(args, placeholder.MatchString) {
				continue // a synopsis: mrtrgen breaking --against REV PATHS
			}
			if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "specs") }) {
				args = append(args, "specs/tickets.mrtr.yaml") // a hook: pre-commit passes the files
			}
			code, out, errOut := run(t, args...)
			if code != ExitOK {
				t.Errorf("docs/%s: mrtrgen %s: exit %d\n%s%s", doc, strings.Join(args, " "), code, out, errOut)
			}
			ran++
		}
	}
	if ran < 5 {
		t.Errorf("ran %d documented commands; the pattern no longer finds them", ran)
	}
}
