package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The repository's .pre-commit-hooks.yaml offers mrtrgen lint and mrtrgen
// breaking (on the changed specs) and mrtrgen check (on the whole tree),
// all installed with the Go toolchain and triggered by spec files; and the
// commands they run exist.
func TestPreCommitHooks(t *testing.T) {
	data, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID            string   `yaml:"id"`
		Name          string   `yaml:"name"`
		Entry         string   `yaml:"entry"`
		Language      string   `yaml:"language"`
		Files         string   `yaml:"files"`
		PassFilenames *bool    `yaml:"pass_filenames"`
		Args          []string `yaml:"args"`
	}
	if err := yaml.Unmarshal(data, &hooks); err != nil {
		t.Fatalf("not YAML: %v", err)
	}
	want := map[string]struct {
		entry string
		pass  bool
	}{
		"mrtrgen-lint":     {"mrtrgen lint", true},
		"mrtrgen-check":    {"mrtrgen check", false},
		"mrtrgen-breaking": {"mrtrgen breaking", true},
	}
	if len(hooks) != len(want) {
		t.Errorf("%d hooks, want %d", len(hooks), len(want))
	}
	for _, h := range hooks {
		w, ok := want[h.ID]
		if !ok {
			t.Errorf("unexpected hook %q", h.ID)
			continue
		}
		delete(want, h.ID)
		if h.Entry != w.entry || h.Language != "golang" || h.Name == "" {
			t.Errorf("%s: entry %q, language %q, name %q", h.ID, h.Entry, h.Language, h.Name)
		}
		if h.PassFilenames == nil || *h.PassFilenames != w.pass {
			t.Errorf("%s: pass_filenames %v, want %v", h.ID, h.PassFilenames, w.pass)
		}
		re, err := regexp.Compile(h.Files)
		if err != nil {
			t.Errorf("%s: files %q: %v", h.ID, h.Files, err)
			continue
		}
		for name, match := range map[string]bool{
			"examples/specs/tickets.mrtr.yaml": true, "a.mrtr.yaml": true,
			"a.yaml": false, "a.mrtr.yaml.bak": false, "mrtr.yaml": false, "xmrtr.yaml": false,
		} {
			if re.MatchString(name) != match {
				t.Errorf("%s: files %q matches %s: %v", h.ID, h.Files, name, !match)
			}
		}
		// The command the hook runs is one mrtrgen knows, and takes the
		// hook's default args.
		verb := strings.TrimPrefix(h.Entry, "mrtrgen ")
		cmd, _, err := newRoot(nil, nil, nil).Find([]string{verb})
		if err != nil || cmd.Name() != verb {
			t.Errorf("%s: mrtrgen has no %q command (%v)", h.ID, verb, err)
			continue
		}
		if err := cmd.ParseFlags(h.Args); err != nil {
			t.Errorf("%s: args %q: %v", h.ID, h.Args, err)
		}
	}
	for id := range want {
		t.Errorf("no hook %s", id)
	}
}
