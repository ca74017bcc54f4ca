package lint

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

// withFileIgnore appends a file-wide opt-out of rule to a fixture (whose
// last top-level key is tools:, so a top-level lint: can follow).
func withFileIgnore(data []byte, rule, reason string) []byte {
	s := strings.TrimRight(string(data), "\n")
	return []byte(s + "\nlint:\n  ignore:\n    " + rule + ": " + reason + "\n")
}

func rulesOf(ds spec.Diagnostics) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Rule)
	}
	return out
}

// A reasoned opt-out silences every finding of its rule in the fixture that
// trips it, and nothing else changes.
func TestIgnoreSilencesEachLintRule(t *testing.T) {
	for _, r := range Rules() {
		if r.Mandatory() || r.ID == "unused-ignore" {
			continue
		}
		t.Run(r.ID, func(t *testing.T) {
			p := filepath.Join("testdata", "rules", r.ID+spec.Ext)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			_, before := loadAndLint(p, data)
			if !slices.Contains(rulesOf(before), r.ID) {
				t.Fatalf("fixture does not trip %s:\n%s", r.ID, before.Error())
			}
			f, after := loadAndLint(p, withFileIgnore(data, r.ID, "Reviewed, this is a test fixture."))
			if f == nil {
				t.Fatalf("fixture with the opt-out does not load:\n%s", after.Error())
			}
			var want []string
			for _, id := range rulesOf(before) {
				if id != r.ID {
					want = append(want, id)
				}
			}
			if got := rulesOf(after); !slices.Equal(got, want) {
				t.Errorf("with the opt-out got %v, want %v\n%s", got, want, after.Error())
			}
		})
	}
}

const scopedSpec = `version: 1
package: fixture
tools:
  annotate:
    description: Annotate a document.
    arguments:
      comment:
        type: string
        required: true
        lint:
          ignore:
            string-without-max-length: Comments are truncated by the handler.
      note: {type: string, required: true}
    initial: lookup
    states:
      lookup:
        check: documentExists
        next: done
      done:
        terminal: success
        message: Annotated ({comment}, {note}).
`

// An opt-out on a field silences that field only.
func TestIgnoreIsScoped(t *testing.T) {
	_, ds := loadAndLint("scoped.mrtr.yaml", []byte(scopedSpec))
	got := findings(ds)
	want := []finding{{13, 7, "warning", "string-without-max-length"}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v\n%s", got, want, ds.Error())
	}
	if !strings.Contains(ds[0].Message, `"note"`) {
		t.Errorf("the remaining finding is not about note: %s", ds[0].Message)
	}
}

// Opt-outs at every level a finding can belong to silence it: the field,
// the request, the state, the tool and the file.
func TestIgnoreLevels(t *testing.T) {
	const base = `version: 1
package: fixture
%FILE%tools:
  feedback:
    description: Collect feedback.
%TOOL%    initial: lookup
    states:
      lookup:
        check: orderExists
        next: askNote
      askNote:
%STATE%        ask:
          note:
%REQUEST%            elicit:
              message: Describe what went wrong with the order.
              fields:
                text:
                  type: string
%FIELD%        next: done
      done:
        terminal: success
        message: 'Thanks: {note.text}'
`
	ignore := func(indent string) string {
		return indent + "lint:\n" + indent + "  ignore:\n" + indent + "    string-without-max-length: Free text, truncated by the handler.\n"
	}
	levels := map[string]string{"FILE": "", "TOOL": "    ", "STATE": "        ", "REQUEST": "            ", "FIELD": "                  "}
	for level, indent := range levels {
		t.Run(level, func(t *testing.T) {
			src := base
			for l := range levels {
				repl := ""
				if l == level {
					repl = ignore(indent)
				}
				src = strings.ReplaceAll(src, "%"+l+"%", repl)
			}
			f, ds := loadAndLint("levels.mrtr.yaml", []byte(src))
			if f == nil {
				t.Fatalf("does not load:\n%s\n%s", ds.Error(), src)
			}
			for _, d := range ds {
				if d.Rule == "string-without-max-length" || d.Rule == "unused-ignore" {
					t.Errorf("opt-out at %s level: %s", level, d)
				}
			}
		})
	}
}

func TestIgnoreUnknownRuleIsError(t *testing.T) {
	data, _ := os.ReadFile("testdata/rules/unused-state.mrtr.yaml")
	_, ds := loadAndLint("x.mrtr.yaml", withFileIgnore(data, "unused-states", "Typo of unused-state."))
	i := slices.IndexFunc(ds, func(d spec.Diagnostic) bool { return d.Rule == "lint-ignore" })
	if i < 0 {
		t.Fatalf("no lint-ignore finding:\n%s", ds.Error())
	}
	if ds[i].Severity != spec.Error || !strings.Contains(ds[i].Message, `"unused-states"`) {
		t.Errorf("got %s", ds[i])
	}
	// The misspelt opt-out silences nothing, so the real finding remains.
	if !slices.Contains(rulesOf(ds), "unused-state") {
		t.Errorf("unused-state was silenced by a misspelt opt-out:\n%s", ds.Error())
	}
}

func TestIgnoreThatSilencesNothing(t *testing.T) {
	data, _ := os.ReadFile("testdata/rules/unused-state.mrtr.yaml")
	_, ds := loadAndLint("x.mrtr.yaml", withFileIgnore(data, "vague-ask-message", "There are no asks yet."))
	i := slices.IndexFunc(ds, func(d spec.Diagnostic) bool { return d.Rule == "unused-ignore" })
	if i < 0 {
		t.Fatalf("no unused-ignore finding:\n%s", ds.Error())
	}
	if ds[i].Severity != spec.Warning || !strings.Contains(ds[i].Message, `"vague-ask-message"`) {
		t.Errorf("got %s", ds[i])
	}
}

// Loader rules report specs that cannot be generated; opting out of one is
// itself an error, and does not hide the loader's finding.
func TestLoaderAndMandatoryRulesCannotBeIgnored(t *testing.T) {
	clean, _ := os.ReadFile("testdata/rules/unused-state.mrtr.yaml")
	for _, r := range Rules() {
		if !r.Loader() {
			continue
		}
		t.Run(r.ID, func(t *testing.T) {
			_, ds := loadAndLint("x.mrtr.yaml", withFileIgnore(clean, r.ID, "I would rather not be told."))
			if !slices.ContainsFunc(ds, func(d spec.Diagnostic) bool {
				return d.Rule == "lint-ignore" && d.Severity == spec.Error && strings.Contains(d.Message, "cannot be ignored")
			}) {
				t.Errorf("opting out of mandatory rule %s is not an error:\n%s", r.ID, ds.Error())
			}
		})
	}
	// A spec whose generated code would not compile keeps its finding; the
	// opt-out is only a warning that it has no effect.
	colliding, _ := os.ReadFile("testdata/rules/go-identifier-collision.mrtr.yaml")
	_, ds := loadAndLint("x.mrtr.yaml", withFileIgnore(colliding, "go-identifier-collision", "Please."))
	if !slices.Contains(rulesOf(ds), "go-identifier-collision") || !slices.Contains(rulesOf(ds), "unused-ignore") {
		t.Errorf("a go-identifier-collision finding was silenced, or its opt-out not reported:\n%s", ds.Error())
	}
	// On a spec the rule has nothing against, the opt-out is a warning
	// only: specs from when the rule could be silenced keep generating.
	for _, r := range Rules() {
		if r.Mandatory() && !r.Loader() {
			_, ds := loadAndLint("x.mrtr.yaml", withFileIgnore(clean, r.ID, "Kept from an earlier version."))
			if ds.HasErrors() || !slices.Contains(rulesOf(ds), "unused-ignore") {
				t.Errorf("an opt-out of mandatory rule %s: want a warning only, got:\n%s", r.ID, ds.Error())
			}
		}
	}
	// A broken spec stays broken whatever it opts out of.
	broken, _ := os.ReadFile("testdata/rules/unknown-reference.mrtr.yaml")
	f, ds := loadAndLint("x.mrtr.yaml", withFileIgnore(broken, "unknown-reference", "Please."))
	if f != nil || !slices.Contains(rulesOf(ds), "unknown-reference") {
		t.Errorf("loader finding was silenced:\n%s", ds.Error())
	}
}

func TestIgnoreNeedsReason(t *testing.T) {
	data, _ := os.ReadFile("testdata/rules/unused-state.mrtr.yaml")
	for name, reason := range map[string]string{"blank": `"   "`, "empty": `""`, "null": `~`} {
		t.Run(name, func(t *testing.T) {
			f, ds := loadAndLint("x.mrtr.yaml", withFileIgnore(data, "unused-state", reason))
			if f != nil || !ds.HasErrors() {
				t.Fatalf("an opt-out without a reason was accepted:\n%s", ds.Error())
			}
			if got := ds[0].Pos.Line; got != 21 {
				t.Errorf("reported at line %d, want the opt-out's line 21:\n%s", got, ds.Error())
			}
		})
	}
}

// An accept of a breaking rule uses the same opt-out; lint neither calls
// it unknown nor unused (mrtrgen breaking judges it), and a misspelt one
// is still an error.
func TestIgnoreOfBreakingRule(t *testing.T) {
	data, _ := os.ReadFile("testdata/rules/unused-state.mrtr.yaml")
	_, clean := loadAndLint("x.mrtr.yaml", data)
	_, ds := loadAndLint("x.mrtr.yaml", withFileIgnore(data, "state-removed", "Drained for one TTL before the deploy."))
	if got, want := rulesOf(ds), rulesOf(clean); !slices.Equal(got, want) {
		t.Errorf("with a breaking accept lint reports %v, want %v:\n%s", got, want, ds.Error())
	}
	_, ds = loadAndLint("x.mrtr.yaml", withFileIgnore(data, "state-removd", "Typo."))
	if !slices.Contains(rulesOf(ds), "lint-ignore") {
		t.Errorf("a misspelt breaking accept is not reported:\n%s", ds.Error())
	}
}
