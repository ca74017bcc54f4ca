package breaking

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"go.yaml.in/yaml/v3"

	"github.com/mrtrgen/mrtrgen/spec"
)

// A fixture is testdata/{rules,compatible}/NAME.txtar: a comment saying what
// changes, old.mrtr.yaml, new.mrtr.yaml, and want, one "rule @ line:col"
// per expected finding (positions in the new file), sorted as Compare
// sorts them. A rule's fixtures are named after it ("RULE" or
// "RULE--variant").
type fixture struct {
	name     string
	old, new []byte
	want     []string
}

func loadFixtures(t testing.TB, dir string) []fixture {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in testdata/%s (%v)", dir, err)
	}
	var out []fixture
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fx := fixture{name: strings.TrimSuffix(filepath.Base(p), ".txtar")}
		for _, f := range a.Files {
			switch f.Name {
			case "old.mrtr.yaml":
				fx.old = f.Data
			case "new.mrtr.yaml":
				fx.new = f.Data
			case "want":
				for _, l := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
					if l != "" {
						fx.want = append(fx.want, l)
					}
				}
			default:
				t.Fatalf("%s: unexpected file %s", p, f.Name)
			}
		}
		if fx.old == nil || fx.new == nil {
			t.Fatalf("%s: needs old.mrtr.yaml and new.mrtr.yaml", p)
		}
		out = append(out, fx)
	}
	return out
}

func mustParse(t testing.TB, name string, data []byte) *spec.File {
	t.Helper()
	f, ds := spec.Parse(name, data, spec.Options{})
	if f == nil {
		t.Fatalf("%s does not load:\n%s", name, ds.Error())
	}
	return f
}

func (fx fixture) compare(t testing.TB, newData []byte) []Finding {
	t.Helper()
	return Compare(mustParse(t, "old.mrtr.yaml", fx.old), mustParse(t, "new.mrtr.yaml", newData))
}

// findings compares the fixture's old and new specs and reports it when
// what is found is not what the fixture wants.
func (fx fixture) findings(t testing.TB) []Finding {
	t.Helper()
	got := fx.compare(t, fx.new)
	if !slices.Equal(short(got), fx.want) {
		t.Errorf("got %q, want %q\n%s", short(got), fx.want, long(got))
	}
	return got
}

func short(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s @ %d:%d", f.Rule, f.Pos.Line, f.Pos.Col))
	}
	return out
}

func long(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\t%s\n", f)
	}
	return b.String()
}

// Each rule fixture produces exactly its findings, at their positions.
func TestRuleFixtures(t *testing.T) {
	for _, fx := range loadFixtures(t, "rules") {
		t.Run(fx.name, func(t *testing.T) {
			got := fx.findings(t)
			rule, _, _ := strings.Cut(fx.name, "--")
			if !slices.Contains(rulesOf(got), rule) {
				t.Errorf("the fixture of %s does not trip it", rule)
			}
			for _, f := range got {
				if r := Lookup(f.Rule); r == nil || f.Severity != r.Severity || (r.Category != "" && f.Category != r.Category) {
					t.Errorf("%s: severity %s, category %q do not match the rule table", f.Rule, f.Severity, f.Category)
				}
			}
		})
	}
}

// Compatible changes break nothing: no error or warning, in either
// direction (a rolling deploy runs both builds at once) except where the
// reverse is a break of its own, which the fixture says.
func TestCompatibleFixtures(t *testing.T) {
	for _, fx := range loadFixtures(t, "compatible") {
		t.Run(fx.name, func(t *testing.T) {
			got := fx.findings(t)
			for _, f := range got {
				if f.Severity != Info {
					t.Errorf("a compatible change is reported as %s:\n\t%s", f.Severity, f)
				}
			}
		})
	}
}

// Every rule with a check has a fixture that trips it, and every fixture
// is named after a rule.
func TestEveryRuleHasAFixture(t *testing.T) {
	have := map[string]bool{}
	for _, fx := range loadFixtures(t, "rules") {
		rule, _, _ := strings.Cut(fx.name, "--")
		if Lookup(rule) == nil {
			t.Errorf("fixture %s is named after no rule", fx.name)
		}
		have[rule] = true
	}
	for _, r := range Rules() {
		if !have[r.ID] {
			t.Errorf("rule %s has no fixture in testdata/rules", r.ID)
		}
	}
}

func rulesOf(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule)
	}
	return out
}

// withFileAccept appends a file-wide accept of rule to a fixture's new
// version (whose last top-level key is tools: or prompts:).
func withFileAccept(data []byte, rule string) []byte {
	return []byte(strings.TrimRight(string(data), "\n") + "\nlint:\n  ignore:\n    " + rule + ": Reviewed, this is a test fixture.\n")
}

// An accept in the new version removes its rule's findings and nothing
// else; used, it is not reported as unused.
func TestAcceptInSpec(t *testing.T) {
	for _, fx := range loadFixtures(t, "rules") {
		rule, _, _ := strings.Cut(fx.name, "--")
		if rule == "unused-accept" {
			continue
		}
		t.Run(fx.name, func(t *testing.T) {
			got := rulesOf(fx.compare(t, withFileAccept(fx.new, rule)))
			var want []string
			for _, w := range fx.want {
				if id, _, _ := strings.Cut(w, " @ "); id != rule {
					want = append(want, id)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("with the accept got %v, want %v", got, want)
			}
		})
	}
}

// A deleted spec removes every workflow: reported at the old positions.
func TestDeletedSpec(t *testing.T) {
	old := mustParse(t, "old.mrtr.yaml@main", []byte(`version: 1
package: fixture
tools:
  a: {description: A., initial: done, states: {done: {terminal: success, message: Done.}}}
prompts:
  b: {description: B., initial: done, states: {done: {terminal: success, messages: [{role: user, text: B.}]}}}
`))
	got := Compare(old, nil)
	want := []string{"tool-removed @ 4:3", "prompt-removed @ 6:3"}
	if !slices.Equal(short(got), want) {
		t.Fatalf("got %q, want %q\n%s", short(got), want, long(got))
	}
	if got[0].Pos.File != "old.mrtr.yaml@main" || !strings.Contains(got[0].Message, "the spec was deleted") {
		t.Errorf("finding: %s", got[0])
	}
	if Compare(nil, old) != nil {
		t.Error("a new spec has nothing to break")
	}
}

// Every example spec compared with itself: nothing changes, nothing is
// reported.
func TestExamplesUnchanged(t *testing.T) {
	for _, p := range exampleSpecs(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := Compare(mustParse(t, p, data), mustParse(t, p, data)); len(got) > 0 {
			t.Errorf("%s against itself:\n%s", p, long(got))
		}
	}
}

func exampleSpecs(t testing.TB) []string {
	t.Helper()
	paths, err := spec.Discover([]string{filepath.Join("..", "examples", "specs")})
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example specs: %v", err)
	}
	return paths
}

// The rule table and its explanations are complete, and the snippets are
// YAML a user can paste.
func TestRuleTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		if seen[r.ID] {
			t.Errorf("rule %s is listed twice", r.ID)
		}
		seen[r.ID] = true
		if r.Summary == "" || r.Hint == "" || r.Why == "" || r.Severity == 0 {
			t.Errorf("rule %s lacks a summary, hint, explanation or severity", r.ID)
		}
		if (r.check == nil) != (r.ID == "unused-accept") {
			t.Errorf("rule %s: check %v", r.ID, r.check != nil)
		}
		if r.check != nil && (r.Old == "" || r.New == "") {
			t.Errorf("rule %s has no before/after example", r.ID)
		}
		for what, text := range map[string]string{"Old": r.Old, "New": r.New, "Fixed": r.Fixed} {
			if text == "" {
				continue
			}
			var v any
			if err := yaml.Unmarshal([]byte(text), &v); err != nil {
				t.Errorf("rule %s: %s is not YAML: %v\n%s", r.ID, what, err, text)
			}
		}
	}
}

// Any two loaded specs compare without a panic, in both directions, and
// every finding is placed in a file and known to the rule table: the
// examples and fixtures against one another (most pairs share nothing,
// so nearly everything is removed or changed).
func TestCompareAnyPair(t *testing.T) {
	var files []*spec.File
	for _, p := range exampleSpecs(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, mustParse(t, p, data))
	}
	for _, dir := range []string{"rules", "compatible"} {
		for _, fx := range loadFixtures(t, dir) {
			files = append(files, mustParse(t, fx.name+"/old", fx.old), mustParse(t, fx.name+"/new", fx.new))
		}
	}
	n := 0
	for _, a := range files {
		for _, b := range files {
			for _, f := range Compare(a, b) {
				n++
				if f.Pos.File == "" || Lookup(f.Rule) == nil || f.Message == "" {
					t.Fatalf("%s against %s: %+v", a.Path, b.Path, f)
				}
			}
		}
		for _, f := range Compare(a, nil) {
			if f.Pos.File != a.Path {
				t.Fatalf("deleted %s: %+v", a.Path, f)
			}
		}
	}
	if n == 0 {
		t.Fatal("no findings at all across unrelated specs")
	}
}
