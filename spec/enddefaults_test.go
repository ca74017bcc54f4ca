package spec

import (
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/vocab"
)

const endDefaultsSpec = `version: 1
package: p
tools:
  lookup:
    description: Look a record up.
    onDecline: nothing
    onCancel: nothing
    initial: which
    states:
      which:
        ask:
          id:
            elicit:
              message: Which record?
              fields:
                id: {type: string, maxLength: 20, required: true}
        next: sure
      sure:
        confirm: {message: 'Look up {id.id}?'}
        next: done
        onCancel: stopped
      done:
        terminal: success
        message: Found {id.id}.
        output:
          found: {type: boolean, required: true}
      nothing:
        terminal: cancelled
        message: Nothing was looked up.
        output:
          found: {type: boolean, required: true}
      stopped:
        terminal: cancelled
        message: Stopped.
        output:
          found: {type: boolean, required: true}
`

// The workflow's onDecline and onCancel become the edges of every ask and
// gate that names none; a state's own key wins, and the tool has no
// implicit end left, so the outputSchema requires what every end gives.
func TestWorkflowEndDefaults(t *testing.T) {
	f, ds := Parse("p.mrtr.yaml", []byte(endDefaultsSpec), Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Error())
	}
	tool := f.Tools[0]
	if tool.OnDecline == nil || tool.OnDecline.Name != "nothing" || tool.OnDecline.Pos.Line != 6 || tool.OnDecline.Pos.Col != 16 {
		t.Fatalf("workflow onDecline %+v, want nothing at 6:16", tool.OnDecline)
	}
	want := map[string][2]string{"which": {"nothing", "nothing"}, "sure": {"nothing", "stopped"}}
	for name, w := range want {
		s := tool.State(name)
		if s.OnDecline == nil || s.OnDecline.Name != w[0] || !s.OnDecline.Default {
			t.Errorf("%s: onDecline %+v, want the default %s", name, s.OnDecline, w[0])
		}
		if s.OnCancel == nil || s.OnCancel.Name != w[1] {
			t.Errorf("%s: onCancel %+v, want %s", name, s.OnCancel, w[1])
		}
	}
	if s := tool.State("sure"); s.OnCancel.Default || s.OnCancel.Pos.Line != 21 {
		t.Errorf("sure's own onCancel %+v is not its own", s.OnCancel)
	}
	var decline *Edge
	for _, e := range tool.State("which").Edges() {
		if e.On == vocab.Decline {
			decline = &e
		}
	}
	if decline == nil || decline.To != "nothing" || decline.Pos.Line != 6 {
		t.Errorf("which's decline edge %+v, want one to nothing at the workflow's key", decline)
	}
	if ends := tool.ImplicitEnds(); len(ends) != 0 {
		t.Errorf("implicit ends %v, want none", ends)
	}
	for _, of := range tool.OutputFields() {
		if of.Name == "found" && !of.SchemaRequired {
			t.Error("found is not required by the outputSchema, though every end gives it")
		}
	}

	// Without the defaults, the same workflow has its implicit ends back
	// (every existing spec keeps its meaning).
	plain := strings.Replace(strings.Replace(endDefaultsSpec, "    onDecline: nothing\n", "", 1), "    onCancel: nothing\n", "", 1)
	f, ds = Parse("p.mrtr.yaml", []byte(plain), Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Error())
	}
	if s := f.Tools[0].State("which"); s.OnDecline != nil || s.OnCancel != nil {
		t.Errorf("without defaults, which goes to %+v / %+v", s.OnDecline, s.OnCancel)
	}
	if len(f.Tools[0].ImplicitEnds()) != 2 {
		t.Errorf("without defaults, implicit ends %d, want 2", len(f.Tools[0].ImplicitEnds()))
	}
}

// A bad default is reported where it is written, with a hint, once.
func TestWorkflowEndDefaultsRefused(t *testing.T) {
	for _, c := range []struct {
		name, from, to, want, hint string
	}{
		{"unknown", "onDecline: nothing", "onDecline: nothng", `p.mrtr.yaml:6:16: error: tool "lookup": onDecline names state "nothng", which is not declared`, "nothing"},
		{"not terminal", "onCancel: nothing", "onCancel: sure", `p.mrtr.yaml:7:15: error: tool "lookup": the workflow's onCancel must name a terminal state, and sure is a confirm state`, "name a terminal state"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ds := Parse("p.mrtr.yaml", []byte(strings.Replace(endDefaultsSpec, c.from, c.to, 1)), Options{})
			var got []Diagnostic
			for _, d := range ds {
				if d.Severity == Error {
					got = append(got, d)
				}
			}
			if len(got) != 1 || !strings.HasPrefix(got[0].String(), c.want) || !strings.Contains(got[0].Hint, c.hint) {
				t.Fatalf("got %v, want one error %q with a hint naming %q", got, c.want, c.hint)
			}
		})
	}
	// On a workflow with no ask or gate, there is nothing to default.
	src := `version: 1
package: p
tools:
  t:
    description: d
    onDecline: done
    initial: done
    states:
      done: {terminal: success, message: Done.}
`
	_, ds := Parse("p.mrtr.yaml", []byte(src), Options{})
	if !ds.HasErrors() || !strings.Contains(ds.Error(), "p.mrtr.yaml:6:16") || !strings.Contains(ds.Error(), "applies to asks and gates") {
		t.Fatalf("got %v, want an error at 6:16 that onDecline applies to asks and gates", ds)
	}
	// The schema knows the keys: a misspelt one is refused with a suggestion.
	_, ds = Parse("p.mrtr.yaml", []byte(strings.Replace(endDefaultsSpec, "onCancel: nothing", "onCancell: nothing", 1)), Options{})
	if !ds.HasErrors() || !strings.Contains(ds.Error(), "p.mrtr.yaml:7:5") || !strings.Contains(ds.Error(), "onCancel") {
		t.Fatalf("got %v, want the misspelt key refused at 7:5 with a suggestion", ds)
	}
}

// titlePattern constrains the titles of a list of options: compiled
// anchored, refused on any other field, and a bad one is located.
func TestTitlePattern(t *testing.T) {
	src := func(field string) []byte {
		return []byte(`version: 1
package: p
tools:
  t:
    description: d
    continuation:
      fields:
        ` + field + `
    initial: done
    states:
      done: {terminal: success, message: Done.}
`)
	}
	f, ds := Parse("p.mrtr.yaml", src(`owners: {type: array, maxItems: 5, items: {type: option, maxLength: 24, titleMaxLength: 60, titlePattern: '[ -~]+'}}`), Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Error())
	}
	it := f.Tools[0].Continuation.Field("owners").Items
	if it.TitlePattern != "[ -~]+" || it.TitleRegexp == nil || !it.TitleRegexp.MatchString("Ada Lovelace") || it.TitleRegexp.MatchString("Zoë") {
		t.Errorf("titlePattern %q compiled to %v", it.TitlePattern, it.TitleRegexp)
	}
	for _, c := range []struct{ field, want string }{
		{`name: {type: string, maxLength: 24, titlePattern: '[a-z]+'}`, `p.mrtr.yaml:8:45: error: name: titlePattern applies to options only`},
		{`owners: {type: array, maxItems: 5, items: {type: option, maxLength: 24, titleMaxLength: 60, titlePattern: '(?=a)'}}`, `p.mrtr.yaml:8:115: error: pattern "(?=a)" does not compile`},
	} {
		_, ds := Parse("p.mrtr.yaml", src(c.field), Options{})
		if !ds.HasErrors() || !strings.Contains(ds.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.field, ds, c.want)
		}
	}
}

// The workflow's onExpire goes to every approval gate without its own,
// and is refused on a workflow without an approval gate.
func TestWorkflowExpireDefault(t *testing.T) {
	const src = `version: 1
package: p
tools:
  pay:
    description: Pay out after finance approves.
    onExpire: lapsed
    initial: small
    states:
      small:
        confirm:
          message: Pay?
          approval: {approvers: finance, deadline: 24h}
        next: big
      big:
        confirm:
          message: Pay more?
          key: confirmMore
          approval: {approvers: finance, deadline: 24h}
        onExpire: late
        next: done
      done: {terminal: success, message: Paid.}
      lapsed: {terminal: expired, message: Nobody approved in time.}
      late: {terminal: expired, message: Too late.}
`
	f, ds := Parse("p.mrtr.yaml", []byte(src), Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Error())
	}
	tool := f.Tools[0]
	if s := tool.State("small"); s.OnExpire == nil || s.OnExpire.Name != "lapsed" || !s.OnExpire.Default {
		t.Errorf("small: onExpire %+v, want the workflow's lapsed", s.OnExpire)
	}
	if s := tool.State("big"); s.OnExpire == nil || s.OnExpire.Name != "late" || s.OnExpire.Default {
		t.Errorf("big: onExpire %+v, want its own late", s.OnExpire)
	}
	noApproval := strings.NewReplacer("          approval: {approvers: finance, deadline: 24h}\n", "", "        onExpire: late\n", "").Replace(src)
	_, ds = Parse("p.mrtr.yaml", []byte(noApproval), Options{})
	if !ds.HasErrors() || !strings.Contains(ds.Error(), "p.mrtr.yaml:6:15") || !strings.Contains(ds.Error(), "onExpire applies to approval gates") {
		t.Fatalf("got %v, want an error at 6:15 that onExpire applies to approval gates", ds)
	}
	notTerminal := strings.Replace(src, "onExpire: lapsed", "onExpire: big", 1)
	_, ds = Parse("p.mrtr.yaml", []byte(notTerminal), Options{})
	if !ds.HasErrors() || !strings.Contains(ds.Error(), "must name a terminal state") {
		t.Fatalf("got %v, want the non-terminal target refused", ds)
	}
}
