package lint

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

// The budget counts what dynamic options carry as the generated codec
// writes it: each option a value and a title (two strings at their bounds),
// a chosen value as a string of the list's values, and a multi-select of
// them at most as many as the list holds.
func TestOptionSizes(t *testing.T) {
	src := []byte(`version: 1
package: p
tools:
  pick:
    description: Pick.
    continuation:
      fields:
        matches:
          type: array
          maxItems: 5
          items: {type: option, maxLength: 28, titleMaxLength: 40}
        loose:
          type: array
          maxItems: 5
          items: {type: option, maxLength: 28}
    initial: find
    states:
      find:
        check: find
        sets: [matches, loose]
        next: choose
      choose:
        ask:
          choice:
            elicit:
              message: Which one?
              fields:
                one: {type: enum, valuesFrom: matches, required: true}
                many: {type: array, items: {type: enum, valuesFrom: matches}}
        next: done
      done: {terminal: success, message: Done.}
`)
	f, ds := spec.Parse("p.mrtr.yaml", src, spec.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Error())
	}
	tool := f.Tools[0]
	// Entries of envelope 3: key, kind, length, payload (entrySize); an
	// option is a group of its value's and its title's string entries.
	value, title := 28*4, 40*4
	option := entrySize(value) + entrySize(title)
	q := tool.State("choose").Request("choice")
	for _, c := range []struct {
		name string
		f    *spec.Field
		want int
	}{
		{"a list of options", tool.Continuation.Field("matches"), entrySize(1 + 5*stringSize(option))},
		{"options without a bound on their titles", tool.Continuation.Field("loose"), unbounded},
		{"one of the options", q.Field("one"), entrySize(value)},
		{"a multi-select of them", q.Field("many"), entrySize(1 + 5*stringSize(value))},
	} {
		if got := fieldSize(c.f); got != c.want {
			t.Errorf("%s: %d bytes, want %d", c.name, got, c.want)
		}
	}
}
