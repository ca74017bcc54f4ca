package lint

import (
	"fmt"
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

// A string counts, a character, the UTF-8 bytes of the widest character
// its pattern admits (a case-folded k may match the Kelvin sign, three
// bytes; a "." or a negated class any, four), one under an ASCII-only
// format, and four without either (net/mail and net/url accept UTF-8).
func TestRuneBytes(t *testing.T) {
	for _, c := range []struct {
		pattern, format string
		want            int
	}{
		{`[0-9]{1,12}`, "", 1},
		{`cus_[A-Za-z0-9]+`, "", 1},
		{`CHG-[0-9]{1,8}|none`, "", 1},
		{`[a-z]+\.[a-z]+`, "", 1},
		{`(?i)[a-z]+`, "", 3}, // folds reach U+017F and U+212A
		{`(?i)[0-9_-]+`, "", 1},
		{`.+`, "", 4},
		{`[^"]+`, "", 4},
		{`[a-zé]+`, "", 2},
		{`[a-zà-ÿ ]+`, "", 2},
		{`[一-龥]+`, "", 3},
		{`\p{Han}+`, "", 4}, // CJK extension B and later are past U+FFFF
		{`x|[a-z]{0,3}€`, "", 3},
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
	if !strings.Contains(d.Hint, "unless its pattern or format admits only narrower ones") {
		t.Errorf("hint %q does not say how a pattern cuts the cost", d.Hint)
	}
}

// A pattern that bounds the whole string bounds its size below maxLength
// times the width of a character, and so does the date format; a pattern
// with *, + or an open repetition leaves maxLength to bound it.
func TestStringBytes(t *testing.T) {
	n := func(i int) *int { return &i }
	for _, c := range []struct {
		pattern, format string
		maxLength       *int
		want            int
	}{
		{`dep_[0-9a-f]{8}`, "", n(200), 12},
		{`T-[0-9]{1,8}`, "", n(10), 10},
		{`T-[0-9]{1,8}`, "", nil, 10},
		{`u-[a-z]+`, "", n(24), 24},
		{`u-[a-z]+`, "", nil, unbounded},
		{`[a-z]{2}|[0-9]{5}`, "", n(100), 5},
		{`(?i)k{2}`, "", n(10), 6},
		{`(ab)?c{0,3}`, "", n(50), 5},
		{`x*`, "", nil, unbounded},
		{`[a-zé]{1,4}`, "", n(100), 8},
		{`[a-z]{3,}`, "", n(7), 7},
		{"", "date", n(40), 10},
		{"", "date-time", n(40), 40},
		{"", "email", n(40), 160},
		{"", "", nil, unbounded},
	} {
		f := &spec.Field{Type: spec.TypeString, Pattern: c.pattern, Format: c.format, MaxLength: c.maxLength}
		if got := stringBytes(f); got != c.want {
			t.Errorf("pattern %q format %q maxLength %v: %d bytes, want %d", c.pattern, c.format, c.maxLength, got, c.want)
		}
	}
}

// optionsSpec is a workflow that offers n options a check found (each
// option item declared by item), carried while it waits at choose.
func optionsSpec(n int, item string) string {
	return fmt.Sprintf(`version: 1
package: p
tools:
  pick:
    description: Pick.
    arguments:
      name: {type: string, required: true, maxLength: 40}
    continuation:
      fields:
        matches:
          type: array
          maxItems: %d
          items: {%s}
    initial: find
    states:
      find:
        check: find
        sets: [matches]
        next: choose
      choose:
        ask:
          pick:
            elicit:
              message: Which {name}?
              fields:
                customer: {type: enum, valuesFrom: matches, required: true}
        next: done
      done:
        terminal: success
        message: Done.
`, n, item)
}

// The figures of issue 31 item 6, pinned: 8 and 20 offered options. The
// list carries every value and title; the answer only the chosen value,
// at the width and length its pattern allows.
func TestOptionListBudget(t *testing.T) {
	for _, c := range []struct {
		n            int
		item         string
		token, value int
	}{
		// 8 customers, titles of 100 characters: the titles are what costs.
		{8, "type: option, maxLength: 28, pattern: 'cus_[A-Za-z0-9]{4,24}', titleMaxLength: 100", 4962, 46},
		{8, "type: option, maxLength: 28, titleMaxLength: 100", 5970, 158},
		// 20 options with 80-character titles.
		{20, "type: option, maxLength: 28, pattern: 'cus_[A-Za-z0-9]{4,24}', titleMaxLength: 80", 9916, 46},
		{20, "type: option, maxLength: 28, titleMaxLength: 80", 12268, 158},
		// Titles of printable ASCII (titlePattern) count a byte a character.
		{8, "type: option, maxLength: 28, pattern: 'cus_[A-Za-z0-9]{4,24}', titleMaxLength: 100, titlePattern: '[ -~]+'", 1751, 46},
		{20, "type: option, maxLength: 28, pattern: 'cus_[A-Za-z0-9]{4,24}', titleMaxLength: 80, titlePattern: '[ -~]+'", 3463, 46},
		// Latin-1 letters: two bytes a character.
		{20, "type: option, maxLength: 28, pattern: 'cus_[A-Za-z0-9]{4,24}', titleMaxLength: 80, titlePattern: '[A-Za-zÀ-ÿ ,.-]+'", 5650, 46},
		// A pattern that bounds the whole value bounds it below maxLength.
		{20, "type: option, maxLength: 200, pattern: 'u-[0-9]{6}', titleMaxLength: 80", 9356, 19},
	} {
		f, ds := spec.Parse("p.mrtr.yaml", []byte(optionsSpec(c.n, c.item)), spec.Options{})
		if ds.HasErrors() {
			t.Fatal(ds.Error())
		}
		tool := f.Tools[0]
		n, parts := tokenSizeAt(newGraph(tool), tool.State("choose"))
		var answer int
		for _, p := range parts {
			if p.what == "answer pick.customer" {
				answer = base64Len(p.bytes)
			}
		}
		if n != c.token || answer != c.value {
			t.Errorf("%d options {%s}: token %d bytes, answer %d; want %d and %d", c.n, c.item, n, answer, c.token, c.value)
		}
		var finding *spec.Diagnostic
		for _, d := range Run(f) {
			if d.Rule == "continuation-too-large" {
				finding = &d
			}
		}
		switch {
		case c.token <= 4096:
			if finding != nil {
				t.Errorf("%d options within the budget: %v", c.n, finding)
			}
		case finding == nil || !strings.Contains(finding.Message, "the largest: continuation field matches") ||
			!strings.Contains(finding.Hint, "a list of options carries every title"):
			t.Errorf("%d options: finding %v does not name the list first and say what its titles cost", c.n, finding)
		}
	}
}

// An enum answer carries its value, not its title: titles of any length
// cost nothing, in a single choice or a multi-select.
func TestEnumTitlesAreNotCarried(t *testing.T) {
	long := strings.Repeat("é", 80)
	src := fmt.Sprintf(`version: 1
package: p
tools:
  pick:
    description: Pick.
    initial: choose
    states:
      choose:
        ask:
          pick:
            elicit:
              message: Which plan?
              fields:
                plan: {type: enum, values: [basic, pro], titles: {basic: %q, pro: %q}, required: true}
                plans: {type: array, maxItems: 2, items: {type: enum, values: [basic, pro], titles: {basic: %q, pro: %q}}}
        next: done
      done:
        terminal: success
        message: Done.
`, long, long, long, long)
	f, ds := spec.Parse("p.mrtr.yaml", []byte(src), spec.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Error())
	}
	q := f.Tools[0].State("choose").Requests[0]
	if got, want := fieldSize(q.Field("plan")), entrySize(len("basic")); got != want {
		t.Errorf("plan: %d bytes, want %d (the longest value)", got, want)
	}
	if got, want := fieldSize(q.Field("plans")), entrySize(1+2*stringSize(len("basic"))); got != want {
		t.Errorf("plans: %d bytes, want %d (two values)", got, want)
	}
}

// A log shown by a question costs the token its worst case while it
// is a carried continuation field; declared transient (recomputed by a
// handler method on each render) it costs nothing, and the same spec no
// longer needs more than the default budget.
func TestTransientNotCounted(t *testing.T) {
	const head = `version: 1
package: p
tools:
  triage:
    description: Triage a failed build.
    arguments:
      pipeline: {type: string, required: true, maxLength: 40}
    continuation:
      fields:
        runId: {type: string, maxLength: 24, pattern: '[0-9]+'}
`
	const states = `    initial: lookup
    states:
      lookup: {check: findRun, sets: [runId], next: diagnose}
      diagnose:
        ask:
          cause:
            elicit:
              message: "Run {runId} failed:\n{ciLog}\nRetry it?"
              fields:
                decision: {type: enum, values: [retry, skip], required: true}
        next: done
      done: {terminal: success, message: "Run {runId}: {cause.decision}"}
`
	carried := head + "        ciLog: {type: string, maxLength: 1500}\n" + strings.Replace(states, "{check: findRun, sets: [runId]", "{check: findRun, sets: [runId, ciLog]", 1)
	transient := head + "      transient:\n        ciLog: {type: string, maxLength: 1500, from: renderCiLog, reads: [runId]}\n" + states
	size := func(src string) (int, []spec.Diagnostic) {
		t.Helper()
		f, ds := spec.Parse("p.mrtr.yaml", []byte(src), spec.Options{})
		if ds.HasErrors() {
			t.Fatal(ds.Error())
		}
		tool := f.Tools[0]
		n, _ := tokenSizeAt(newGraph(tool), tool.State("diagnose"))
		var found []spec.Diagnostic
		for _, d := range Run(f) {
			if d.Rule == "continuation-too-large" || d.Severity == spec.Error {
				found = append(found, d)
			}
		}
		return n, found
	}
	before, beforeFindings := size(carried)
	after, afterFindings := size(transient)
	t.Logf("worst-case token at diagnose: %d bytes carried, %d bytes transient", before, after)
	if before != 8248 || after != 238 {
		t.Errorf("worst-case token %d bytes carried, %d transient; want 8248 and 238", before, after)
	}
	if len(beforeFindings) != 1 || beforeFindings[0].Rule != "continuation-too-large" || !strings.Contains(beforeFindings[0].Message, "ciLog") {
		t.Errorf("carried: want one continuation-too-large naming ciLog, got %v", beforeFindings)
	}
	if len(afterFindings) != 0 {
		t.Errorf("transient: want no finding, got %v", afterFindings)
	}
}
