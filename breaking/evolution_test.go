package breaking

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/evolution.md is the contract the continuation codec and this
// checker share: every rule of its table of incompatible changes is a
// continuation rule here, every continuation error rule is in the table,
// and the findings name the log reason the runtime gives for it.
func TestEvolutionDocTable(t *testing.T) {
	b, err := os.ReadFile("../docs/evolution.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "## Incompatible changes")
	if !ok {
		t.Fatal(`docs/evolution.md has no "## Incompatible changes" section`)
	}
	table, _, _ = strings.Cut(table, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|[^|]*\\| `([a-z_]+)`")
	reasons := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		reasons[m[1]] = m[2]
	}
	if len(reasons) < 5 {
		t.Fatalf("found %d rows; the table's format changed", len(reasons))
	}
	for id := range reasons {
		if r := Lookup(id); r == nil || r.Category != Continuation || r.Severity != Error {
			t.Errorf("docs/evolution.md lists %s, which is no continuation error rule here", id)
		}
	}
	fixtures := loadFixtures(t, "rules")
	for _, r := range Rules() {
		if r.Category != Continuation || r.Severity != Error {
			continue
		}
		reason, ok := reasons[r.ID]
		if !ok {
			t.Errorf("continuation rule %s is not in docs/evolution.md's table", r.ID)
			continue
		}
		i := slices.IndexFunc(fixtures, func(fx fixture) bool { return fx.name == r.ID })
		if i < 0 {
			continue // TestEveryRuleHasAFixture says so
		}
		for _, f := range fixtures[i].compare(t, fixtures[i].new) {
			if f.Rule == r.ID && !strings.HasSuffix(f.Message, "("+reason+")") {
				t.Errorf("%s: the message does not end with the log reason (%s): %s", r.ID, reason, f.Message)
			}
		}
	}
}
