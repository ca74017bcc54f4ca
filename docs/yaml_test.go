package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Every ```yaml block of the docs (docs/*.md, the README) is YAML a user
// can paste: it must parse. docs/lint.md holds the "Triggers it" and
// "Fixed" snippets of every rule (the output of mrtrgen explain), so this
// covers them as a reader sees them (issue 16 item 7).
func TestDocsYAMLBlocksParse(t *testing.T) {
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "README.md"))
	open := regexp.MustCompile("^( *)```ya?ml\\s*$")
	blocks := 0
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i := 0; i < len(lines); i++ {
			m := open.FindStringSubmatch(lines[i])
			if m == nil {
				continue
			}
			start, indent := i+1, m[1]
			var body []string
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
				// A block inside a list item is indented with it.
				body = append(body, strings.TrimPrefix(lines[i], indent))
			}
			blocks++
			var v any
			if err := yaml.Unmarshal([]byte(strings.Join(body, "\n")), &v); err != nil {
				t.Errorf("%s:%d: the yaml block is not YAML: %v", p, start, err)
			}
		}
	}
	if blocks < 40 {
		t.Fatalf("found %d yaml blocks; the pattern no longer matches the docs", blocks)
	}
}
