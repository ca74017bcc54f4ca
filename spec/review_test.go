package spec_test

import (
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

// Findings for shapes an outside review of the spec language tried that
// loaded without one (and then failed to generate, compile or pass the
// generated tests).
func TestReviewedShapes(t *testing.T) {
	const transients = `version: 1
package: p
tools:
  wipe:
    description: Wipe a repository after the user types a word.
    arguments:
      repo: {type: string, maxLength: 20, required: true}
    continuation:
      transient:
        word: {type: string, maxLength: 20, from: renderWord, reads: [repo]}
        diff: {type: string, maxLength: 200, from: renderWord, reads: [repo]}
    initial: gate
    states:
      gate:
        confirm:
          message: 'Type {word} to wipe {repo} ({diff}).'
          typed: '{word}'
        next: done
      done: {terminal: success, message: 'Wiped {repo}.'}
`
	_, ds := spec.Parse("p.mrtr.yaml", []byte(transients), spec.Options{})
	got := ds.Error()
	if want := `p.mrtr.yaml:11:52: error: transient values "word" and "diff" are both computed by renderWord (line 10) [transient]`; !strings.Contains(got, want) {
		t.Errorf("got:\n%s\nwant %q", got, want)
	}
	_, ds = spec.Parse("p.mrtr.yaml", []byte(strings.Replace(transients, "from: renderWord, reads: [repo]}\n    initial", "from: renderDiff, reads: [repo]}\n    initial", 1)), spec.Options{})
	if want := `gate "gate": the text to type uses transient value {word}`; !strings.Contains(ds.Error(), want) {
		t.Errorf("got:\n%s\nwant %q", ds.Error(), want)
	}

	const forms = `version: 1
package: p
tools:
  close:
    description: Close a ticket with a reason.
    questions:
      closing:
        elicit:
          message: Why close it?
          fields:
            reason: {type: string, maxLength: 40, required: true}
    arguments:
      id: {type: string, maxLength: 10, required: true}
    initial: askM
    states:
      askM:
        ask:
          closing:
            question:
              extend: {fields: {extra: {type: string, maxLength: 5, goType: TicketID}}}
        next: askC
      askC:
        ask:
          closing:
            question:
              extend: {fields: {extra: {type: string, maxLength: 5}}}
        next: done
      done: {terminal: success, message: 'Closed {id}.'}
`
	_, ds = spec.Parse("p.mrtr.yaml", []byte(forms), spec.Options{})
	if !strings.Contains(ds.Error(), "is bound to Go type none here") {
		t.Errorf("an added field bound to two Go types: got\n%s", ds.Error())
	}
}
