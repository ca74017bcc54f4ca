package lint

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// The "Triggers it" and "Fixed" fragments of mrtrgen explain are YAML a
// user can paste into a spec: they must at least parse.
func TestRuleSnippetsAreYAML(t *testing.T) {
	for _, r := range Rules() {
		for what, text := range map[string]string{"Bad": r.Bad, "Good": r.Good} {
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
