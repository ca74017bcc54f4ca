package spec_test

import (
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

// The loader's refusals of typed confirmations and formats, each at its
// place.
func TestTypedConfirmationLoader(t *testing.T) {
	const head = `version: 1
package: fixture
tools:
  deploy:
    description: Deploy a release.
    arguments:
      releaseId: {type: string, maxLength: 12, required: true}
      when: {type: string, format: date-time, maxLength: 40, required: true}
    initial: gate
    states:
      gate:
        confirm:
`
	const tail = `        next: done
      done:
        terminal: success
        message: Done.
`
	for _, tc := range []struct{ name, gate, want string }{
		{"ok", "          message: Type {releaseId} to deploy.\n          typed: '{releaseId}'\n", ""},
		{"ok fixed", "          message: Type DELETE to deploy {releaseId}.\n          typed: DELETE\n          maxAttempts: 1\n", ""},
		{"not shown", "          message: Deploy it?\n          typed: '{releaseId}'\n", "14:19: error: gate \"gate\": the text to type uses {releaseId}, which the message does not show [template]"},
		{"fixed not shown", "          message: Deploy {releaseId}?\n          typed: DELETE\n", "the message does not show the text to type (\"DELETE\") [template]"},
		{"blank", "          message: Deploy {releaseId}?\n          typed: ' '\n", "the text to type is empty [template]"},
		{"section", "          message: Deploy {releaseId}?\n          typed: '{?releaseId}x{/releaseId}'\n", "the text to type (typed) cannot have a section [template]"},
		{"maxAttempts alone", "          message: Deploy {releaseId}?\n          maxAttempts: 2\n", "14:11: error: maxAttempts bounds a typed confirmation, but this gate has no typed text [state]"},
		{"too many attempts", "          message: Type {releaseId}.\n          typed: '{releaseId}'\n          maxAttempts: 11\n", "[schema]"},
		{"date of a date-time", "          message: Deploy {releaseId} at {when|date}?\n", ""},
		{"int of a string", "          message: Deploy {releaseId|int}?\n", "13:27: error: {releaseId|int}: releaseId is a string; format int takes an integer [template-format]"},
		{"unknown unit", "          message: Deploy {releaseId|duration:w}?\n", "format duration takes a unit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := spec.Parse("t.mrtr.yaml", []byte(head+tc.gate+tail), spec.Options{})
			got := diags.Error()
			if diags == nil {
				got = ""
			}
			switch {
			case tc.want == "" && len(diags) > 0:
				t.Fatalf("refused: %s", got)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// The hint for a typed text the message does not show is in the tool's
// own words: its title, else the effect the gate leads to, else its name
// (it said "to deploy" in every tool).
func TestTypedConfirmationHintWords(t *testing.T) {
	spec1 := func(tool, title, gate, next string) string {
		s := "version: 1\npackage: fixture\ntools:\n  " + tool + ":\n    description: A tool.\n"
		if title != "" {
			s += "    title: " + title + "\n"
		}
		return s + `    arguments:
      name: {type: string, maxLength: 12, required: true}
    initial: gate
    states:
      gate:
        confirm:
` + gate + "        next: " + next + `
      act:
        effect: removeEverything
        next: done
      done:
        terminal: success
        message: Done.
`
	}
	const notShown = "          message: Sure?\n          typed: '{name}'\n"
	const fixedNotShown = "          message: Sure?\n          typed: ERASE\n"
	for _, tc := range []struct{ name, src, want string }{
		{"title", spec1("delete_customer", "Delete a customer.", notShown, "act"), `show it in the message: "Type {name} to delete a customer."`},
		{"title with an acronym", spec1("revoke_tokens", "Revoke API tokens", notShown, "act"), `"Type {name} to revoke API tokens."`},
		{"effect", spec1("purge_workspace", "", notShown, "act"), `show it in the message: "Type {name} to remove everything."`},
		{"name", spec1("purge_workspace", "", notShown, "done"), `show it in the message: "Type {name} to purge workspace."`},
		{"fixed text", spec1("drop_table", "Drop a table", fixedNotShown, "act"), `show it in the message: "Type ERASE to drop a table."`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := spec.Parse("t.mrtr.yaml", []byte(tc.src), spec.Options{})
			var hints []string
			for _, d := range diags {
				hints = append(hints, d.Hint)
			}
			if !strings.Contains(strings.Join(hints, "\n"), tc.want) {
				t.Fatalf("hints %q, want %q\n%s", hints, tc.want, diags.Error())
			}
		})
	}
}
