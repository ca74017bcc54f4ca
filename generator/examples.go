package generator

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mrtrgen/mrtrgen/spec"
)

// Example values for generated tests and docs: a field's `example:` when
// the spec gives one, otherwise the simplest value its constraints allow.
// variant 1 gives a second, different value where one exists (to prove a
// requestState is bound to its arguments).

// An answeredField is a form field a generated answer sends, and the value
// it sends.
type answeredField struct {
	f *spec.Field
	v any
}

// answeredFields are the form fields of q a generated answer sends, each
// with its example: every field with one, so the tests run the code of
// present values too and a message made of optional answers is not
// empty. A required field without an example is an error.
func answeredFields(q *spec.InputRequest) ([]answeredField, error) {
	var out []answeredField
	for _, f := range q.Fields {
		v, err := exampleValue(f, 0)
		if err != nil {
			if f.Required {
				return nil, err
			}
			continue
		}
		out = append(out, answeredField{f, v})
	}
	return out, nil
}

// exampleValue returns a valid JSON value for f, or an error saying that
// the spec should give an example.
func exampleValue(f *spec.Field, variant int) (any, error) {
	// A goType string's example is the one value known to convert to the
	// type: it serves every variant, unless a pattern derives others (one
	// that matches the pattern converts, or the pattern is too loose).
	if f.Example != nil && (variant == 0 || f.GoType != nil && f.Type == spec.TypeString && f.Pattern == "") {
		return f.Example, nil
	}
	if f.Dynamic() {
		opts, err := exampleOptions(f.Source)
		if err != nil {
			return nil, err
		}
		return opts[min(variant, len(opts)-1)].Value, nil
	}
	if f.Type == spec.TypeArray && f.Items != nil && f.Items.Type == spec.TypeOption {
		return exampleOptions(f)
	}
	if f.Type == spec.TypeArray && f.Items != nil && f.Items.Dynamic() {
		return exampleChoices(f, variant)
	}
	switch f.Type {
	case spec.TypeEnum:
		if len(f.Values) == 0 {
			return nil, fmt.Errorf("enum %s has no values", f.Name)
		}
		return f.Values[min(variant, len(f.Values)-1)].Value, nil
	case spec.TypeBoolean:
		return variant == 0, nil
	case spec.TypeInteger, spec.TypeNumber:
		lo, hi := -1e18, 1e18
		if f.Minimum != nil {
			lo = *f.Minimum
		}
		if f.Maximum != nil {
			hi = *f.Maximum
		}
		v := max(lo, min(hi, 1))
		if variant > 0 && v+1 <= hi {
			v++
		}
		if f.Type == spec.TypeInteger {
			return int64(v), nil
		}
		return v, nil
	case spec.TypeString:
		return exampleString(f, variant)
	case spec.TypeArray:
		if f.Items == nil {
			return nil, fmt.Errorf("array %s has no items", f.Name)
		}
		n := 1
		if f.MinItems != nil && *f.MinItems > n {
			n = *f.MinItems
		}
		if f.MaxItems != nil && *f.MaxItems < n {
			n = *f.MaxItems
		}
		item := *f.Items
		item.Name = f.Name
		var out []any
		for i := range n {
			v, err := exampleValue(&item, (variant+i)%max(1, len(item.Values)))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("no example for %s", f.Name)
}

// exampleOptions are the options a generated fake offers from the
// continuation list src: its example, or up to two options derived from
// the items' constraints (titled "Option 1", "Option 2" for lists of
// options; a string is its own title).
func exampleOptions(src *spec.Field) ([]spec.Option, error) {
	if src == nil || src.OptionItems() == nil {
		return nil, fmt.Errorf("no list of options to offer")
	}
	switch ex := src.Example.(type) {
	case []spec.Option:
		if len(ex) > 0 {
			return ex, nil
		}
	case []string:
		if len(ex) > 0 {
			out := make([]spec.Option, len(ex))
			for i, v := range ex {
				out[i] = spec.Option{Value: v, Title: v}
			}
			return out, nil
		}
	}
	item := *src.Items
	item.Name = src.Name
	n := 2
	if src.MaxItems != nil {
		n = max(1, min(n, *src.MaxItems))
	}
	var out []spec.Option
	for i := range n {
		v, err := exampleString(&item, i)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(o spec.Option) bool { return o.Value == v }) {
			continue // the constraints allow one value only
		}
		title := v
		if item.Type == spec.TypeOption {
			title = fmt.Sprintf("Option %d", i+1)
			if item.TitlePattern != "" && (item.TitleRegexp == nil || !item.TitleRegexp.MatchString(title)) {
				if title, err = matchingString(item.TitlePattern, i); err != nil {
					return nil, fmt.Errorf("cannot derive an example title for %s from titlePattern %q (%w); add example: to the list", src.Name, item.TitlePattern, err)
				}
			}
			if item.TitleMaxLength != nil && utf8.RuneCountInString(title) > *item.TitleMaxLength {
				title = string([]rune(title)[:*item.TitleMaxLength])
			}
			if item.TitleRegexp != nil && !item.TitleRegexp.MatchString(title) {
				return nil, fmt.Errorf("cannot derive an example title for %s within titleMaxLength that matches titlePattern %q; add example: to the list", src.Name, item.TitlePattern)
			}
		}
		out = append(out, spec.Option{Value: v, Title: title})
	}
	return out, nil
}

func optionValues(opts []spec.Option) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o.Value
	}
	return out
}

// exampleChoices is a valid answer of a multi-select of offered options:
// as many distinct offered values as it needs (minItems, at least one).
func exampleChoices(f *spec.Field, variant int) ([]any, error) {
	opts, err := exampleOptions(f.Items.Source)
	if err != nil {
		return nil, err
	}
	n := 1
	if f.MinItems != nil && *f.MinItems > n {
		n = *f.MinItems
	}
	if n > len(opts) {
		return nil, fmt.Errorf("%s needs %d options, but the example of %s has %d; give %s an example: with more", f.Name, n, f.Items.Source.Name, len(opts), f.Items.Source.Name)
	}
	var out []any
	for i := range n {
		out = append(out, opts[(variant+i)%len(opts)].Value)
	}
	return out, nil
}

func exampleString(f *spec.Field, variant int) (string, error) {
	var s string
	switch {
	case f.Pattern != "":
		var err error
		if s, err = matchingString(f.Pattern, variant); err != nil {
			return "", fmt.Errorf("cannot derive an example for %s from pattern %q (%w); add example: to the field", f.Name, f.Pattern, err)
		}
	case f.Format == "email":
		s = []string{"ada@example.com", "grace@example.com"}[min(variant, 1)]
	case f.Format == "uri":
		s = []string{"https://example.com/a", "https://example.com/b"}[min(variant, 1)]
	case f.Format == "date":
		s = []string{"2026-07-28", "2026-07-29"}[min(variant, 1)]
	case f.Format == "date-time":
		s = []string{"2026-07-28T12:00:00Z", "2026-07-29T12:00:00Z"}[min(variant, 1)]
	default:
		s = []string{"example", "another"}[min(variant, 1)]
		if f.MaxLength != nil && utf8.RuneCountInString(s) > *f.MaxLength {
			s = string([]rune(s)[:*f.MaxLength])
		}
		if f.MinLength != nil {
			for utf8.RuneCountInString(s) < *f.MinLength {
				s += "x"
			}
		}
	}
	n := utf8.RuneCountInString(s)
	if (f.MaxLength != nil && n > *f.MaxLength) || (f.MinLength != nil && n < *f.MinLength) {
		return "", fmt.Errorf("the derived example %q of %s does not fit its length bounds; add example: to the field", s, f.Name)
	}
	return s, nil
}

// matchingString derives a short string the whole pattern matches: the
// first branch of alternations, the least repetitions (plus variant), and
// a letter or digit from each class where there is one. Results are
// remembered: one pattern is asked for again and again (fixtures, scripts,
// tests), and compiling it each time dominated generation.
func matchingString(pattern string, variant int) (string, error) {
	key := matchKey{pattern, variant}
	if r, ok := matchCache.Load(key); ok {
		m := r.(matchResult)
		return m.s, m.err
	}
	s, err := deriveMatch(pattern, variant)
	matchCache.Store(key, matchResult{s, err})
	return s, err
}

type matchKey struct {
	pattern string
	variant int
}

type matchResult struct {
	s   string
	err error
}

var matchCache sync.Map // matchKey → matchResult

func deriveMatch(pattern string, variant int) (string, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := writeMatch(&b, re.Simplify(), variant); err != nil {
		return "", err
	}
	s := b.String()
	if !regexp.MustCompile(`^(?:` + pattern + `)$`).MatchString(s) {
		return "", fmt.Errorf("derived %q does not match", s)
	}
	return s, nil
}

func writeMatch(b *strings.Builder, re *syntax.Regexp, variant int) error {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		b.WriteRune(classRune(re.Rune, variant))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture:
		return writeMatch(b, re.Sub[0], variant)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if err := writeMatch(b, s, variant); err != nil {
				return err
			}
		}
	case syntax.OpAlternate:
		return writeMatch(b, re.Sub[0], variant)
	case syntax.OpPlus:
		return writeMatch(b, re.Sub[0], variant)
	case syntax.OpStar, syntax.OpQuest:
		if variant > 0 {
			return writeMatch(b, re.Sub[0], variant)
		}
	case syntax.OpRepeat:
		n := re.Min
		if variant > 0 && (re.Max == -1 || re.Min < re.Max) {
			n++
		}
		for range n {
			if err := writeMatch(b, re.Sub[0], variant); err != nil {
				return err
			}
		}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
	default:
		return fmt.Errorf("unsupported construct %s", re.Op)
	}
	return nil
}

// classRune picks a rune from a class: a letter or digit if the class has
// one (the first, or with variant the last), else its first rune.
func classRune(ranges []rune, variant int) rune {
	var picks []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for _, r := range []rune{lo, hi} {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				picks = append(picks, r)
			}
		}
	}
	if len(picks) == 0 {
		return ranges[0]
	}
	if variant > 0 {
		return picks[len(picks)-1]
	}
	return picks[0]
}
