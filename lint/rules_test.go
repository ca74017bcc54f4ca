package lint

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/internal/gotypecheck"
	"github.com/mrtrgen/mrtrgen/spec"
)

// Each file in testdata/rules is a small spec that trips one rule. Its
// header comments say what must be reported, one finding per line:
//
//	# want: LINE:COL SEVERITY RULE
//
// The findings of loading and linting the file must be exactly these: no
// more, no fewer, at these positions.

var wantRE = regexp.MustCompile(`^#\s*want:\s*(\d+):(\d+)\s+(error|warning)\s+(\S+)\s*$`)

// finding is the part of a diagnostic a fixture pins down.
type finding struct {
	Line, Col int
	Severity  string
	Rule      string
}

func (f finding) String() string {
	return fmt.Sprintf("%d:%d %s %s", f.Line, f.Col, f.Severity, f.Rule)
}

func parseWants(t *testing.T, data []byte) []finding {
	t.Helper()
	var out []finding
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		m := wantRE.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		var f finding
		if _, err := fmt.Sscan(m[1], &f.Line); err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Sscan(m[2], &f.Col); err != nil {
			t.Fatal(err)
		}
		f.Severity, f.Rule = m[3], m[4]
		out = append(out, f)
	}
	return out
}

// loadAndLint is what `mrtrgen lint` does with one file.
func loadAndLint(path string, data []byte) (*spec.File, spec.Diagnostics) {
	f, ds := spec.Parse(path, data, spec.Options{})
	if f != nil {
		ds = append(ds, Run(f)...)
		// go-type needs the Go code, which mrtrgen generate loads.
		ds = append(ds, gotypecheck.Check(f, filepath.Dir(path))...)
	}
	ds.Sort()
	return f, ds
}

func findings(ds spec.Diagnostics) []finding {
	out := make([]finding, 0, len(ds))
	for _, d := range ds {
		out = append(out, finding{d.Pos.Line, d.Pos.Col, d.Severity.String(), d.Rule})
	}
	return out
}

func TestRuleFixtures(t *testing.T) {
	paths, err := filepath.Glob("testdata/rules/*.mrtr.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), spec.Ext), func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			want := parseWants(t, data)
			if len(want) == 0 {
				t.Fatal("fixture has no `# want:` line")
			}
			_, ds := loadAndLint(p, data)
			got := findings(ds)
			if !slices.Equal(got, want) {
				t.Errorf("findings differ\n got: %v\nwant: %v\nfull output:\n%s", got, want, ds.Error())
			}
			for _, d := range ds {
				if d.Pos.File != p {
					t.Errorf("finding names file %q, want %q", d.Pos.File, p)
				}
				if d.Message == "" {
					t.Errorf("finding %v has no message", d)
				}
				if r := Lookup(d.Rule); r == nil {
					t.Errorf("finding uses rule %q, which is not in the registry", d.Rule)
				} else if !r.Loader() && r.Severity != d.Severity {
					t.Errorf("rule %s is a %s but was reported as a %s", r.ID, r.Severity, d.Severity)
				}
			}
		})
	}
}

// Every rule in the registry has a fixture named after it that trips it, so
// a new rule cannot be added without showing what it finds and where.
func TestEveryRuleHasFixture(t *testing.T) {
	for _, r := range Rules() {
		p := filepath.Join("testdata", "rules", r.ID+spec.Ext)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("rule %s has no fixture %s: %v", r.ID, p, err)
			continue
		}
		if !slices.ContainsFunc(parseWants(t, data), func(f finding) bool { return f.Rule == r.ID }) {
			t.Errorf("fixture %s does not expect a %s finding", p, r.ID)
		}
	}
	// And no fixture is left over from a removed or renamed rule.
	paths, _ := filepath.Glob("testdata/rules/*" + spec.Ext)
	for _, p := range paths {
		if Lookup(strings.TrimSuffix(filepath.Base(p), spec.Ext)) == nil {
			t.Errorf("fixture %s names no rule", p)
		}
	}
}

// The registry itself is well formed: unique ids, every rule documented, and
// every lint rule either checked or reported by a check of another rule.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	reportedElsewhere := map[string]bool{"unused-state": true, "no-terminal-path": true, "unused-ignore": true}
	idRE := regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
	for _, r := range Rules() {
		if seen[r.ID] {
			t.Errorf("rule %s is registered twice", r.ID)
		}
		seen[r.ID] = true
		if !idRE.MatchString(r.ID) {
			t.Errorf("rule id %q is not kebab-case", r.ID)
		}
		if r.Summary == "" {
			t.Errorf("rule %s has no summary", r.ID)
		}
		if r.Severity != spec.Error && r.Severity != spec.Warning {
			t.Errorf("rule %s has no severity", r.ID)
		}
		if r.Loader() {
			if r.check != nil {
				t.Errorf("loader rule %s has a lint check", r.ID)
			}
			continue
		}
		if r.Hint == "" || r.Why == "" {
			t.Errorf("lint rule %s needs a hint and a why", r.ID)
		}
		if r.check == nil && !reportedElsewhere[r.ID] {
			t.Errorf("lint rule %s has no check and nothing reports it", r.ID)
		}
	}
	if Lookup("no-such-rule") != nil {
		t.Error("Lookup found a rule that does not exist")
	}
	rs := Rules()
	rs[0] = nil
	if Rules()[0] == nil {
		t.Error("Rules returns the registry itself, not a copy")
	}
}

// Without the workflow's onDecline and onCancel, the asks and gates of the
// fixture's rename_customer end by themselves, without output, and
// output-missing reports each: the defaults are what silence it.
func TestOutputMissingHonoursWorkflowDefaults(t *testing.T) {
	p := "testdata/rules/output-missing.mrtr.yaml"
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(strings.Replace(string(data), "    onDecline: unchanged\n", "", 1), "    onCancel: unchanged\n", "", 1)
	_, ds := loadAndLint(p, []byte(src))
	var got []string
	for _, d := range ds {
		if d.Rule == "output-missing" {
			got = append(got, fmt.Sprintf("%d:%d", d.Pos.Line, d.Pos.Col))
			if (d.Pos.Line == 75 || d.Pos.Line == 83) && !strings.Contains(d.Message, "onDecline and onCancel on the workflow") {
				t.Errorf("finding %q does not point at the workflow's defaults", d.Message)
			}
		}
	}
	// find_customer and create_customer as the fixture says; then
	// rename_customer's name (no onDecline, no onCancel) and confirm (no
	// onCancel); close_customer's kept.
	if want := []string{"32:7", "44:7", "75:7", "83:7", "141:7"}; !slices.Equal(got, want) {
		t.Errorf("output-missing at %v, want %v\n%s", got, want, ds.Error())
	}
}
