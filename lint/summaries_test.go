package lint

import (
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

// A section on a value that may be absent is what makes the value
// optional in the text: neither optional-value-in-template, answer-not-given
// nor value-not-set reports what is inside it; the same placeholders
// outside a section are reported.
func TestSectionsGuardValues(t *testing.T) {
	const src = `version: 1
package: fixture
tools:
  deploy:
    description: Deploy a release.
    arguments:
      releaseId: {type: string, maxLength: 12, required: true}
      note: {type: string, maxLength: 100}
    continuation:
      fields:
        window: {type: integer, minimum: 0, maximum: 1440}
    initial: look
    states:
      look:
        check: lookUp
        sets: []
        next: ask
      ask:
        lint: {ignore: {ask-before-discovery: Only the sections matter here.}}
        ask:
          extra:
            optional: true
            elicit:
              message: Anything to add for {releaseId}?
              fields:
                text: {type: string, maxLength: 100, required: true}
        next: gate
        onDecline: gate
      gate:
        confirm:
          message: 'Deploy {releaseId}?{?note} Note: {note}.{/note}{?window} Window: {window|duration:m}.{/window}{?extra.text} Extra: {extra.text}.{/extra.text}'
        next: done
        onDecline: done
      done:
        terminal: success
        message: 'Deployed {releaseId}. MESSAGE'
`
	run := func(message string) []string {
		f, ds := spec.Parse("t.mrtr.yaml", []byte(strings.Replace(src, "MESSAGE", message, 1)), spec.Options{})
		if f == nil || ds.HasErrors() {
			t.Fatalf("load: %v", ds)
		}
		var rules []string
		for _, d := range Run(f) {
			rules = append(rules, d.Rule)
		}
		return rules
	}
	if got := run(""); len(got) != 0 {
		t.Fatalf("sections: %v", got)
	}
	got := strings.Join(run("{note} {window} {extra.text}"), " ")
	for _, rule := range []string{"optional-value-in-template", "value-not-set", "answer-not-given"} {
		if !strings.Contains(got, rule) {
			t.Errorf("outside sections: %s, want %s", got, rule)
		}
	}
}
