package spec

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseTemplateFormatsAndSections(t *testing.T) {
	for _, tc := range []struct {
		raw, want, err string
	}{
		{raw: "Refund {amount|money:currency}.", want: "Refund [amount|money:currency]."},
		{raw: "{amount|money:EUR}", want: "[amount|money:EUR]"},
		{raw: "{share|percent:1} {n|int} {w|duration:m} {d|date} {t|datetime} {l|list} {e|title} {x|decimal}", want: "[share|percent:1] [n|int] [w|duration:m] [d|date] [t|datetime] [l|list] [e|title] [x|decimal]"},
		{raw: "a{?note} ({note}){/note}b", want: "a(?note) ([note])(/)b"},
		{raw: "{?a}{?b.c}x{/b.c}{/a}", want: "(?a)(?b.c)x(/)(/)"},
		{raw: "{{?a}} {{x|int}}", want: "{?a} {x|int}"},
		{raw: "{x|money}", err: "format money takes a currency"},
		{raw: "{x|money:1eur}", err: "format money takes a currency"},
		{raw: "{x|decimal:10}", err: "places from 0 to 9"},
		{raw: "{x|duration:w}", err: "a unit"},
		{raw: "{x|int:2}", err: "takes no argument"},
		{raw: "{x|bold}", err: `unknown format "bold"`},
		{raw: "{x|}", err: `unknown format ""`},
		{raw: "{x|decimal:}", err: "empty argument"},
		{raw: "{?x}open", err: "section {?x} is not closed"},
		{raw: "{/x}", err: "{/x} closes no section"},
		{raw: "{?x}{/y}", err: "{/y} closes section {?x}"},
		{raw: "{?x|int}{/x}", err: "want a name"},
		{raw: "{?a}{?b}{?c}{?d}{?e}{/e}{/d}{/c}{/b}{/a}", err: "at most 4 deep"},
		{raw: "{?note}yes{/note}{!note}no{/note}", want: "(?note)yes(/)(!note)no(/)"},
		{raw: "{*items} - {.}{/items}", want: "(*items) - [.](/)"},
		{raw: "{*items}{.|title}, {other}{/items}", want: "(*items)[.|title], [other](/)"},
		{raw: "{!x}open", err: "section {!x} is not closed"},
		{raw: "{*x}open", err: "section {*x} is not closed"},
		{raw: "{*x}{/y}", err: "{/y} closes section {*x}"},
		{raw: "{.}", err: "{.} is the item of a per-item section"},
		{raw: "{?x}{.|int}{/x}", err: "{.|int} is the item of a per-item section"},
		{raw: "{*a}{?b}{*c}{/c}{/b}{/a}", err: "per-item sections do not nest"},
		{raw: "{*a}{.|bold}{/a}", err: `unknown format "bold"`},
		{raw: "{!a.b}x{/a.b}", want: "(!a.b)x(/)"},
	} {
		tpl, err := parseTemplate(tc.raw, Pos{}, nil)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.raw, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.raw, err)
			continue
		}
		if got := show(tpl); got != tc.want {
			t.Errorf("%q parsed as %q, want %q", tc.raw, got, tc.want)
		}
	}
}

func show(t *Template) string {
	var b strings.Builder
	for _, p := range t.Parts {
		switch {
		case p.Open != nil:
			b.WriteString("(" + sigil(p) + p.Open.Name() + ")")
		case p.Close:
			b.WriteString("(/)")
		case p.Ref != nil:
			b.WriteString("[" + p.Ref.Name())
			if f := p.Ref.Format; f != nil {
				b.WriteString("|" + f.Name)
				if f.Arg != "" {
					b.WriteString(":" + f.Arg)
				}
			}
			b.WriteString("]")
		default:
			b.WriteString(p.Literal)
		}
	}
	return b.String()
}

func sigil(p TemplatePart) string { return string(p.Sigil()) }

// FuzzParseTemplate: any text parses or is refused with an offset inside
// it, never a panic; what parses has balanced sections, and rendering its
// parts back (literal braces doubled, sections closed by name) parses to
// the same parts.
func FuzzParseTemplate(f *testing.F) {
	for _, s := range []string{"", "plain", "{a}", "{a.b|money:c}", "{?a}x{/a}", "{{}}", "{x|decimal:2}", "{?a}{?b}{/b}{/a}", "}", "{", "{a|", "{?a}",
		"{!a}x{/a}", "{*a}{.}{/a}", "{*a}{.|title}{/a}", "{.}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !utf8.ValidString(raw) {
			return
		}
		tpl, err := parseTemplate(raw, Pos{}, nil)
		if err != nil {
			var te *templateError
			if !errors.As(err, &te) || te.Offset < 0 || te.Offset > len(raw) {
				t.Fatalf("%q: error %v at a bad offset", raw, err)
			}
			return
		}
		depth := 0
		var open []string
		var again strings.Builder
		for _, p := range tpl.Parts {
			switch {
			case p.Open != nil:
				depth++
				open = append(open, p.Open.Name())
				again.WriteString("{" + sigil(p) + p.Open.Name() + "}")
			case p.Close:
				depth--
				again.WriteString("{/" + open[len(open)-1] + "}")
				open = open[:len(open)-1]
			case p.Ref != nil:
				again.WriteString("{" + p.Ref.Name())
				if fm := p.Ref.Format; fm != nil {
					again.WriteString("|" + fm.Name)
					if fm.Arg != "" {
						again.WriteString(":" + fm.Arg)
					}
				}
				again.WriteString("}")
			default:
				again.WriteString(strings.NewReplacer("{", "{{", "}", "}}").Replace(p.Literal))
			}
			if depth < 0 {
				t.Fatalf("%q: a section closed that was not open", raw)
			}
		}
		if depth != 0 {
			t.Fatalf("%q: %d sections left open", raw, depth)
		}
		back, err := parseTemplate(again.String(), Pos{}, nil)
		if err != nil || show(back) != show(tpl) {
			t.Fatalf("%q rendered back as %q: %v (%q, want %q)", raw, again.String(), err, show(back), show(tpl))
		}
	})
}
