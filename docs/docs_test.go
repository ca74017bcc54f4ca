package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/breaking"
	"github.com/mrtrgen/mrtrgen/lint"
)

// The best practices and the test matrix of the MRTR article that
// practices.md answers, in the article's words.
var (
	articlePractices = []string{
		"Use MRTR when additional input is discovered during tool execution.",
		"Put known required parameters directly in the tool schema.",
		"Treat requestState as opaque continuation state.",
		"Never place secrets directly into request state.",
		"Keep continuation state small.",
		"Use durable storage when workflows must survive restarts.",
		"Revalidate authorization on continuation.",
		"Validate every input response.",
		"Protect continuation state from tampering.",
		"Add expiration to sensitive workflows.",
		"Design side-effecting tools for idempotency.",
		"Prevent duplicate execution after retries.",
		"Separate MRTR interaction state from long-running task state.",
		"Use Tasks for operations whose execution itself is long-running.",
		"Test different server instances handling different rounds.",
		"Test process restarts.",
		"Test cancellation and retries.",
		"Add tracing to every round.",
		"Use workflow identifiers when several requests form one business operation.",
		"Test older clients if backward compatibility is required.",
	}
	articleMatrix = [][2]string{
		{"Complete input provided", "Immediate success"},
		{"Missing input", "Input required"},
		{"Valid continuation", "Final result"},
		{"Invalid response", "Validation error"},
		{"Expired state", "Restart required"},
		{"Tampered state", "Reject"},
		{"Duplicate request", "Idempotent behavior"},
		{"Cancellation", "Operation cancelled"},
		{"Unauthorized user", "Authorization failure"},
	}
)

// guides are the pages these tests check (other pages, such as
// benchmarks.md, have their own owners).
var guides = []string{"README.md", "spec.md", "lint.md", "practices.md", "walkthrough.md", "go-generate.md", "pre-commit.md", "ci.md", "editor.md", "graph.md", "breaking.md", "deploy.md", "evolution.md"}

func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// practices.md has one row per best practice and per matrix scenario, each
// saying how it is handled.
func TestPracticesCoverTheArticle(t *testing.T) {
	doc := readDoc(t, "practices.md")
	rows := map[string]string{}
	for _, l := range strings.Split(doc, "\n") {
		cells := strings.Split(l, "|")
		if len(cells) < 4 {
			continue
		}
		for _, c := range cells[1:3] {
			rows[strings.TrimSpace(c)] = l
		}
	}
	kinds := regexp.MustCompile(`\*\*(Spec|Lint|Runtime|Generated tests?|Tests|Documented only|Gap)\*\*`)
	for i, p := range articlePractices {
		row, ok := rows[p]
		if !ok {
			t.Errorf("practice %d is not a row of practices.md: %q", i+1, p)
			continue
		}
		if !kinds.MatchString(row) {
			t.Errorf("practice %q: the row does not say whether it is spec, lint, runtime, a generated test or documented only", p)
		}
	}
	for _, m := range articleMatrix {
		row, ok := rows[m[0]]
		if !ok || !strings.Contains(row, "| "+m[1]+" |") {
			t.Errorf("matrix row %q → %q is not in practices.md", m[0], m[1])
		}
	}
}

// Every rule id practices.md, spec.md and the guides name in backquotes
// after a rule-like word exists in the lint or the breaking registry.
func TestDocsNameRealRules(t *testing.T) {
	ruleRef := regexp.MustCompile("`([a-z]+(?:-[a-z]+)+)`")
	known := map[string]bool{}
	for _, r := range lint.Rules() {
		known[r.ID] = true
	}
	for _, r := range breaking.Rules() {
		known[r.ID] = true
	}
	// Hyphenated words in backquotes that are not rule ids.
	notRules := map[string]bool{"date-time": true, "mrtrgen-lint": true, "mrtrgen-check": true, "mrtrgen-breaking": true, "upload-sarif": true, "yaml-language-server": true}
	for _, f := range guides {
		for _, m := range ruleRef.FindAllStringSubmatch(readDoc(t, f), -1) {
			if !known[m[1]] && !notRules[m[1]] {
				t.Errorf("%s names %q, which is no lint rule", f, m[1])
			}
		}
	}
}

// Relative links between the docs, and to the repository, lead to files
// that exist.
func TestDocLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	for _, f := range guides {
		for _, m := range link.FindAllStringSubmatch(readDoc(t, f), -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", f, target)
			}
		}
	}
}

// The tests practices.md and tasks.md cite as evidence exist: a claim
// that names a test that is gone, or never was, is not evidence.
func TestDocsCiteRealTests(t *testing.T) {
	defined := map[string]bool{}
	testFunc := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	err := filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, "_test.go") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range testFunc.FindAllStringSubmatch(string(b), -1) {
				defined[m[1]] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cited := regexp.MustCompile("`(Test[A-Z]\\w*)`")
	for _, f := range []string{"practices.md", "tasks.md"} {
		for _, m := range cited.FindAllStringSubmatch(readDoc(t, f), -1) {
			if !defined[m[1]] {
				t.Errorf("%s cites %s, which no test file defines", f, m[1])
			}
		}
	}
}
