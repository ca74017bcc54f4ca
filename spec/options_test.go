package spec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// optionsSpec is a tool with a continuation list of options, a list of
// strings and a form that offers them; extra goes under its states, and
// the {arg}, {cont}, {form} markers take field keys where cases need them.
const optionsSpec = `version: 1
package: p
tools:
  pick:
    description: Pick among what a check found.
    arguments:
      name: {type: string, maxLength: 20, required: true}{arg}
    continuation:
      fields:
        matches:
          type: array
          maxItems: 5
          items: {type: option, maxLength: 20, titleMaxLength: 40}
        names:
          type: array
          maxItems: 5
          items: {type: string, maxLength: 20}
        count: {type: integer}{cont}
    initial: find
    states:
      find:
        check: findThem
        sets: {matches: [several], names: [several, one]}
        outcomes: {several: choose, one: done}
      choose:
        ask:
          choice:
            elicit:
              message: Which {name}?
              fields:
                one: {type: enum, valuesFrom: matches, required: true}
                many: {type: array, minItems: 1, items: {type: enum, valuesFrom: names}}{form}
        next: done
      done:
        terminal: success
        message: Done.
`

func optionsCase(arg, cont, form string) []byte {
	r := strings.NewReplacer("{arg}", arg, "{cont}", cont, "{form}", form)
	return []byte(r.Replace(optionsSpec))
}

func TestOptionsResolve(t *testing.T) {
	f, ds := Parse("p.mrtr.yaml", optionsCase("", "", ""), Options{})
	if ds.HasErrors() {
		t.Fatalf("the valid spec: %s", ds.Error())
	}
	tool := f.Tools[0]
	ask := tool.State("choose").Request("choice")
	one, many := ask.Field("one"), ask.Field("many")
	if !one.Dynamic() || one.Source != tool.Continuation.Field("matches") {
		t.Errorf("one: dynamic %v, source %v", one.Dynamic(), one.Source)
	}
	if !many.Items.Dynamic() || many.Items.Source != tool.Continuation.Field("names") || many.Dynamic() {
		t.Errorf("many: items dynamic %v, source %v", many.Items.Dynamic(), many.Items.Source)
	}
	if it := tool.Continuation.Field("matches").Items; it.Type != TypeOption || *it.MaxLength != 20 || *it.TitleMaxLength != 40 {
		t.Errorf("matches items: %+v", it)
	}
	find := tool.State("find")
	if !tool.DeclaresSets() || len(find.Sets) != 2 || find.Sets[0].Field.Name != "matches" || find.Sets[1].Field.Name != "names" {
		t.Fatalf("sets: %+v", find.Sets)
	}
	for _, c := range []struct {
		decl int
		on   vocab.Edge
		want bool
	}{
		{0, vocab.OutcomeEdge("several"), true},
		{0, vocab.OutcomeEdge("one"), false},
		{1, vocab.OutcomeEdge("one"), true},
		{1, vocab.Decline, false},
	} {
		if got := find.Sets[c.decl].SetsOn(c.on); got != c.want {
			t.Errorf("%s on %s: %v", find.Sets[c.decl].Field.Name, c.on, got)
		}
	}
	if (&SetDecl{}).SetsOn(vocab.Decline) || !(&SetDecl{}).SetsOn(vocab.Next) {
		t.Error("a declaration without outcomes holds on next and outcomes only")
	}
}

// Every misuse is refused at its place, with the rule and the reason.
func TestOptionsMisuse(t *testing.T) {
	for _, c := range []struct {
		name             string
		data             []byte
		pos, rule, words string
	}{
		{"valuesFrom on an argument", optionsCase("\n      kind: {type: enum, valuesFrom: matches}", "", ""),
			"8:26", "field", "kind: valuesFrom applies to form fields only"},
		{"an option outside a list", optionsCase("", "\n        one: {type: option, maxLength: 3}", ""),
			"19:15", "field", "one: option is the item type of a continuation list"},
		{"a form list of options", optionsCase("", "", "\n                opts: {type: array, items: {type: option, maxLength: 3}}"),
			"33:37", "field", "form arrays must have enum items"},
		{"valuesFrom with values", optionsCase("", "", "\n                both: {type: enum, valuesFrom: matches, values: [a]}"),
			"33:57", "field", "both: values does not go with valuesFrom"},
		{"valuesFrom with a default", optionsCase("", "", "\n                dflt: {type: enum, valuesFrom: matches, default: a}"),
			"33:57", "field", "dflt: default does not go with valuesFrom"},
		{"valuesFrom naming nothing", optionsCase("", "", "\n                lost: {type: enum, valuesFrom: matchs}"),
			"33:48", "unknown-reference", `valuesFrom "matchs" names no continuation field`},
		{"valuesFrom naming a number", optionsCase("", "", "\n                num: {type: enum, valuesFrom: count}"),
			"33:47", "field", `valuesFrom "count" is int, not a list of options or strings`},
		{"a sensitive list", []byte(strings.Replace(string(optionsCase("", "", "")), "          maxItems: 5\n          items: {type: option", "          maxItems: 5\n          sensitive: true\n          items: {type: option", 1)),
			"32:47", "field", `valuesFrom "matches" is sensitive, but a form sends its options to the client`},
		{"titleMaxLength on a string", optionsCase("", "\n        note: {type: string, maxLength: 3, titleMaxLength: 3}", ""),
			"19:44", "field", "note: titleMaxLength applies to options only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ds := Parse("p.mrtr.yaml", c.data, Options{})
			expectDiag(t, ds, c.pos, c.rule, c.words)
		})
	}
}

func TestSetsMisuse(t *testing.T) {
	base := string(optionsCase("", "", ""))
	swap := func(old, new string) []byte {
		if !strings.Contains(base, old) {
			t.Fatalf("%q is not in the spec", old)
		}
		return []byte(strings.Replace(base, old, new, 1))
	}
	const sets = "        sets: {matches: [several], names: [several, one]}\n"
	for _, c := range []struct {
		name             string
		data             []byte
		pos, rule, words string
	}{
		{"an unknown field", swap(sets, "        sets: [matches, nmes]\n"), "23:25", "unknown-reference", `state "find" sets "nmes", which is not a continuation field`},
		{"an unknown outcome", swap(sets, "        sets: {matches: [sevral]}\n"), "23:26", "unknown-reference", `on outcome "sevral", which the check does not have`},
		{"a field twice", swap(sets, "        sets: [matches, matches]\n"), "23:25", "state", `sets names "matches" twice`},
		{"no outcome", swap(sets, "        sets: {matches: []}\n"), "23:25", "state", `sets: "matches" lists no outcome`},
		{"sets on an ask", swap("        next: done\n      done:", "        next: done\n        sets: [matches]\n      done:"), "34:9", "state", `state "choose": sets does not apply to a ask state`},
		{"by outcome without outcomes", swap("        sets: {matches: [several], names: [several, one]}\n        outcomes: {several: choose, one: done}\n", "        sets: {matches: [x]}\n        next: choose\n"), "23:9", "state", "sets by outcome needs a check with outcomes"},
		{"not a list", swap(sets, "        sets: matches\n"), "23:15", "schema", "expected array or object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ds := Parse("p.mrtr.yaml", c.data, Options{})
			expectDiag(t, ds, c.pos, c.rule, c.words)
		})
	}
}

func expectDiag(t *testing.T, ds Diagnostics, pos, rule, words string) {
	t.Helper()
	for _, d := range ds {
		if fmt.Sprintf("%d:%d", d.Pos.Line, d.Pos.Col) == pos && d.Rule == rule && strings.Contains(d.Message, words) {
			return
		}
	}
	t.Errorf("want %s %s %q, got:\n%s", pos, rule, words, ds.Error())
}
