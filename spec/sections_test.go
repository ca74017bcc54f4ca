package spec_test

import (
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

// TestSectionsLoader: what each kind of section may name, and where the
// loader refuses one with the place and a hint.
func TestSectionsLoader(t *testing.T) {
	const head = `version: 1
package: fixture
tools:
  tag:
    description: Tag a release.
    arguments:
      releaseId: {type: string, maxLength: 12, required: true}
      regions: {type: array, maxItems: 3, items: {type: enum, values: [eu, us]}}
    initial: ask
    states:
      ask:
        ask:
          note:
            elicit:
              message: Note?
              fields:
                text: {type: string, maxLength: 40}
        onDecline: done
        next: done
      done:
        terminal: success
        message: `
	for _, tc := range []struct{ name, message, want string }{
		{"on a whole answer", "'{?note}Noted.{/note}'", ""},
		{"else on a whole answer", "'{!note}No note.{/note}'", ""},
		{"answer field inside answer section", "'{?note}Note: {note.text}.{/note}'", ""},
		{"per item", "'{*regions}{.|title} {/regions}'", ""},
		{"else on a list", "'{!regions}everywhere{/regions}'", ""},
		{"whole answer outside a section", "'{note}'", `{note}: wrong form for input request "note"`},
		{"per item on a string", "'{*releaseId}x{/releaseId}'", "22:19: error: {*releaseId}: releaseId is a string, not a list [template]"},
		{"per item on an answer", "'{*note}x{/note}'", "{*note}: note is the answer to a form, not a list [template]"},
		{"value inside its else", "'{!regions}{regions}{/regions}'", "{regions} is inside {!regions} … {/regions}, shown only when regions is not set: it would render as nothing [template]"},
		{"answer field inside the answer's else", "'{!note}{note.text}{/note}'", "{note.text} is inside {!note} … {/note}"},
		{"item format checked", "'{*regions}{.|int}{/regions}'", "{.|int}: an item of regions is an enum; format int takes an integer [template-format]"},
		{"item outside", "'{.}'", "{.} is the item of a per-item section"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := spec.Parse("t.mrtr.yaml", []byte(head+tc.message+"\n"), spec.Options{})
			got := ""
			if diags != nil {
				got = diags.Error()
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
