package lint

import (
	"regexp"
	"strings"
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

// A string whose pattern or format admits only ASCII counts one byte a
// character; any other (a "." or a case-folded k may match a wider
// character, and net/mail and net/url accept UTF-8) counts four.
func TestRuneBytes(t *testing.T) {
	for _, c := range []struct {
		pattern, format string
		want            int
	}{
		{`[0-9]{1,12}`, "", 1},
		{`cus_[A-Za-z0-9]+`, "", 1},
		{`CHG-[0-9]{1,8}|none`, "", 1},
		{`[a-z]+\.[a-z]+`, "", 1},
		{`(?i)[a-z]+`, "", 4}, // folds reach U+017F and U+212A
		{`(?i)[0-9_-]+`, "", 1},
		{`.+`, "", 4},
		{`[^"]+`, "", 4},
		{`[a-zé]+`, "", 4},
		{`[`, "", 4}, // not a pattern: bad-regex reports it, the size stays wide
		{"", "date", 1},
		{"", "date-time", 1},
		{"", "email", 4},
		{"", "uri", 4},
		{"", "", 4},
	} {
		if got := runeBytes(&spec.Field{Type: spec.TypeString, Pattern: c.pattern, Format: c.format}); got != c.want {
			t.Errorf("pattern %q format %q: %d bytes a character, want %d", c.pattern, c.format, got, c.want)
		}
	}
}

// continuation-too-large names what costs the most, and says how a pattern
// cuts a string's cost when a wide string is among them.
func TestContinuationTooLargeNamesTheLargest(t *testing.T) {
	src := []byte(`version: 1
package: p
tools:
  pick:
    description: Pick.
    arguments:
      id: {type: string, required: true, maxLength: 12, pattern: '[0-9]{1,12}'}
    continuation:
      maxBytes: 2048
      fields:
        log: {type: string, maxLength: 1500}
        runId: {type: string, maxLength: 1000, pattern: '[0-9]+'}
    initial: find
    states:
      find:
        check: find
        sets: [log, runId]
        next: choose
      choose:
        ask:
          why:
            elicit:
              message: Why close {id}?
              fields:
                note: {type: string, maxLength: 200}
                open: {type: string}
        next: done
      done:
        terminal: success
        message: Done {id}.
`)
	f, ds := spec.Parse("p.mrtr.yaml", src, spec.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Error())
	}
	var got []spec.Diagnostic
	for _, d := range Run(f) {
		if d.Rule == "continuation-too-large" {
			got = append(got, d)
		}
	}
	if len(got) != 1 {
		t.Fatalf("want one continuation-too-large finding, got %v", got)
	}
	d := got[0]
	for _, want := range []string{
		`requestState issued at "choose" has no size limit: unbounded are answer why.open`,
	} {
		if !strings.Contains(d.Message, want) {
			t.Errorf("message %q does not say %q", d.Message, want)
		}
	}
	// Bounded, the same workflow is over its budget, and the message
	// ranks the log (1,500 characters at 4 bytes) above the run id (1,000
	// ASCII digits at 1 byte) above the note.
	f, ds = spec.Parse("p.mrtr.yaml", []byte(strings.Replace(string(src), "open: {type: string}", "open: {type: string, maxLength: 10}", 1)), spec.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Error())
	}
	got = got[:0]
	for _, d := range Run(f) {
		if d.Rule == "continuation-too-large" {
			got = append(got, d)
		}
	}
	if len(got) != 1 {
		t.Fatalf("want one continuation-too-large finding, got %v", got)
	}
	d = got[0]
	re := regexp.MustCompile(`the largest: continuation field log (\d+) bytes, continuation field runId (\d+) bytes, answer why\.note (\d+) bytes$`)
	m := re.FindStringSubmatch(d.Message)
	if m == nil {
		t.Fatalf("message %q does not rank log, runId, note", d.Message)
	}
	if log, run := m[1], m[2]; log != "8010" || run != "1343" {
		t.Errorf("log %s bytes and runId %s bytes in the token, want 8010 (6,000 bytes and 7 of entry, in base64) and 1343 (1,000 + 7)", log, run)
	}
	if !strings.Contains(d.Hint, "unless its pattern or format admits only ASCII") {
		t.Errorf("hint %q does not say how a pattern cuts the cost", d.Hint)
	}
}
