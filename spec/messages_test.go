package spec_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

// messageCase is one spec of testdata/messages/cases.txtar.
type messageCase struct {
	name string
	src  []byte
}

var caseHeader = regexp.MustCompile(`(?m)^-- ([a-z0-9-]+) --\n`)

// messageCases reads the cases: a comment, then "-- name --" lines each
// followed by a spec.
func messageCases(t *testing.T) []messageCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "messages", "cases.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	heads := caseHeader.FindAllSubmatchIndex(data, -1)
	var cs []messageCase
	for i, h := range heads {
		end := len(data)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		cs = append(cs, messageCase{string(data[h[2]:h[3]]), data[h[1]:end]})
	}
	return cs
}

// TestMessages pins what the loader says about the mistakes a newcomer
// makes, each at its file:line:col, with its hint: the wording and the
// "did you mean" suggestions are part of the interface.
func TestMessages(t *testing.T) {
	cs := messageCases(t)
	if len(cs) < 40 {
		t.Fatalf("%d cases, want at least 40", len(cs))
	}
	var b strings.Builder
	seen := map[string]bool{}
	for _, c := range cs {
		if seen[c.name] {
			t.Errorf("case %s twice", c.name)
		}
		seen[c.name] = true
		f, ds := spec.Parse(c.name+spec.Ext, c.src, spec.Options{})
		if f != nil || !ds.HasErrors() {
			t.Errorf("%s: loaded without an error", c.name)
		}
		for _, d := range ds {
			if d.Pos.Line < 1 || d.Pos.Col < 1 {
				t.Errorf("%s: no line:col: %s", c.name, d)
			}
		}
		got := formatText(ds)
		if _, again := spec.Parse(c.name+spec.Ext, c.src, spec.Options{}); formatText(again) != got {
			t.Errorf("%s: a second load reports differently:\n%s", c.name, formatText(again))
		}
		fmt.Fprintf(&b, "== %s\n%s", c.name, got)
	}
	golden := filepath.Join("testdata", "messages", "messages.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./spec -run TestMessages -update)", err)
	}
	if b.String() != string(want) {
		t.Errorf("messages changed\n--- got\n%s--- want\n%s", b.String(), want)
	}
}
