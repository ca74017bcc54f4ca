package spec_test

import (
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

// TestSampledTextRules: a sampled text takes a string field's constraints
// and validators; the loader refuses what cannot hold.
func TestSampledTextRules(t *testing.T) {
	const head = `version: 1
package: fixture
validators:
  noSecrets: {type: string}
  positive: {type: integer}
  matchesTicket: {type: string, reads: [ticketId]}
tools:
  summarize:
    description: Summarize a ticket.
    arguments:
      ticketId: {type: string, maxLength: 12, required: true}
    initial: ask
    states:
      ask:
        ask:
          summary:
            sample:
              prompt: Summarize ticket {ticketId}.
`
	const tail = `        next: done
      done:
        terminal: success
        message: '{summary}'
`
	for _, tc := range []struct{ name, rules, want string }{
		{"all", "              maxLength: 200\n              minLength: 5\n              pattern: '[^\\n]+'\n              validate: [noSecrets]\n", ""},
		{"bounds crossed", "              maxLength: 4\n              minLength: 5\n", `sampled text "summary": minLength 5 is more than maxLength 4 [field]`},
		{"bad pattern", "              maxLength: 40\n              pattern: '(['\n", `pattern "([" does not compile`},
		{"validator of another type", "              maxLength: 40\n              validate: [positive]\n", `validator "positive" checks integer values, but field "summary" is string [validator-type]`},
		{"unknown validator", "              maxLength: 40\n              validate: [noSecret]\n", `validator "noSecret" is not declared [unknown-reference]`},
		{"validator with context", "              maxLength: 40\n              validate: [matchesTicket]\n", `sampled text "summary": validator "matchesTicket" reads the workflow`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := spec.Parse("t.mrtr.yaml", []byte(head+tc.rules+tail), spec.Options{})
			got := ""
			if diags != nil {
				got = diags.Error()
			}
			switch {
			case tc.want == "" && diags.HasErrors():
				t.Fatalf("refused: %s", got)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
