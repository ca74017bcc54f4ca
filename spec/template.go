package spec

import (
	"fmt"
	"slices"
	"strings"
)

// Template is a message with placeholders: "Provide the reason for closing
// ticket {ticketId}." A placeholder names an argument ({ticketId}), a
// continuation field ({subject}), an answer ({reason.closeReason} for a
// form field, {summary} for a sampled text, {workspace} for roots), or the
// built-in {workflowId}. "{{" and "}}" stand for literal braces.
//
// A placeholder may name a format after a bar: {amount|money:currency},
// {share|percent}, {window|duration:m}, {since|date}, {regions|list}
// (Format). A section, {?name} … {/name}, is shown only when the value it
// names is set; the placeholders inside it may then name that value even
// when it is optional.
type Template struct {
	Raw   string
	Parts []TemplatePart
	Pos   Pos
}

// TemplatePart is a literal run of text or a placeholder.
type TemplatePart struct {
	Literal string
	Ref     *TemplateRef // nil for a literal
	// Open starts a section shown only when the value it names is set
	// ({?name}); Close ends the innermost one ({/name}). Neither is a
	// placeholder: Ref is nil, and Refs lists Open's reference.
	Open  *TemplateRef
	Close bool
	// Not makes Open's section the other way round: shown only when the
	// value is not set ({!name}, the "else" of {?name}). Each makes it a
	// per-item section: shown once for each item of the list it names
	// ({*name}), where {.} is the item.
	Not, Each bool
}

// RefKind says what a placeholder names (set by the loader's resolver).
type RefKind int

const (
	RefArgument RefKind = iota + 1
	RefContinuation
	RefFormField // Path[0] is the ask key, Path[1] the field
	RefSampled   // the text returned by a sampling request
	RefRoots     // the roots returned by a roots request
	RefWorkflowID
	// RefAnswer is the answer to an elicitation as a whole ({?key}): only
	// a section names it, shown when the user answered (accepted) it.
	RefAnswer
	// RefItem is the item of the per-item section around it ({.},
	// {.|title}); TemplateRef.Each names the list.
	RefItem
	// RefTransient is a transient value (continuation.transient):
	// computed by a handler method when the template is rendered.
	RefTransient
)

// Sigil is how a section opens: '?', '!' (Not) or '*' (Each).
func (p TemplatePart) Sigil() byte {
	switch {
	case p.Not:
		return '!'
	case p.Each:
		return '*'
	}
	return '?'
}

// TemplateRef is one placeholder.
type TemplateRef struct {
	Path []string // "reason.closeReason" → ["reason", "closeReason"]
	Kind RefKind  // resolved by the loader
	Pos  Pos      // position of the placeholder itself (approximate inside folded scalars)
	// Format is how the value is written (nil: as before, the value's own
	// text). Its argument may name another value (money's currency).
	Format *Format
	// Each is, for an item placeholder ({.}), the list of the per-item
	// section it is in.
	Each *TemplateRef
}

// Format is the formatting of a placeholder: {amount|money:currency}.
type Format struct {
	Name string // one of Formats
	Arg  string // "" when absent
	// ArgRef is the value a money format takes its currency from when Arg
	// is a name rather than a three-letter code (resolved like a
	// placeholder); nil otherwise.
	ArgRef *TemplateRef
}

// Formats lists the formats a placeholder may name, with the types they
// take and their arguments, for messages and docs.
var Formats = []FormatInfo{
	{"int", "integer", "", "1,234,567: digits in groups of three"},
	{"decimal", "number or integer", "places (0-9); none: as few as it takes", "1,234.50"},
	{"money", "integer (minor units)", "an ISO 4217 code (EUR) or the string or enum value holding one (currency)", "EUR 1,234.56: the code, then the amount with the currency's minor digits"},
	{"percent", "number or integer (in percent)", "places (0-9)", "12.5%"},
	{"duration", "number or integer", "the unit: ms, s (default), m, h, d", "1h 30m, 2d 4h, 45s"},
	{"date", "string with format date or date-time", "", "2026-12-01 (in UTC)"},
	{"datetime", "string with format date-time", "", "2026-12-01 14:35 UTC"},
	{"list", "array", "", "the items separated by \", \", enum values and options by their titles"},
	{"title", "enum", "", "the value's title (the value when it has none)"},
}

// FormatInfo describes one format.
type FormatInfo struct {
	Name, Takes, Arg, Example string
}

// Guarded reports whether ref is the reference of a section of t or sits
// inside a section that names the same value: where it renders, the value
// is set.
func (t *Template) Guarded(ref *TemplateRef) bool {
	return t.guarded(ref, func(o *TemplateRef) bool { return o.Name() == ref.Name() })
}

// AnswerGuarded reports whether ref, a placeholder naming an answer, is
// where the answer was given: Guarded, or inside a section on the whole
// answer ({?reason} … {reason.comment} … {/reason}). A form field of it
// may still be empty there.
func (t *Template) AnswerGuarded(ref *TemplateRef) bool {
	return t.guarded(ref, func(o *TemplateRef) bool {
		return o.Name() == ref.Name() || (o.Kind == RefAnswer && len(ref.Path) > 1 && o.Path[0] == ref.Path[0])
	})
}

// guarded reports whether ref is the value of a section of t, or sits
// inside a section shown only when a value is set whose reference
// guards says covers ref. A section shown when its value is not set
// ({!name}) guards nothing.
func (t *Template) guarded(ref *TemplateRef, guards func(open *TemplateRef) bool) bool {
	if t == nil {
		return false
	}
	var open []TemplatePart
	for _, p := range t.Parts {
		switch {
		case p.Open != nil:
			if p.Open == ref {
				return true
			}
			open = append(open, p)
		case p.Close:
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case p.Ref != nil:
			if p.Ref == ref || (p.Ref.Format != nil && p.Ref.Format.ArgRef == ref) {
				for _, o := range open {
					if !o.Not && guards(o.Open) {
						return true
					}
				}
				return false
			}
		}
	}
	return false
}

// Sections lists, for each placeholder of t, the sections around it, from
// the outermost in.
func (t *Template) Sections() map[*TemplateRef][]TemplatePart {
	out := map[*TemplateRef][]TemplatePart{}
	var open []TemplatePart
	for _, p := range t.Parts {
		switch {
		case p.Open != nil:
			open = append(open, p)
		case p.Close:
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case p.Ref != nil && len(open) > 0:
			out[p.Ref] = slices.Clone(open)
		}
	}
	return out
}

// Name is the placeholder as written, without braces.
func (r *TemplateRef) Name() string { return strings.Join(r.Path, ".") }

// Refs returns the template's placeholders in order.
func (t *Template) Refs() []*TemplateRef {
	if t == nil {
		return nil
	}
	var rs []*TemplateRef
	for _, p := range t.Parts {
		switch {
		case p.Open != nil:
			rs = append(rs, p.Open)
		case p.Ref != nil:
			rs = append(rs, p.Ref)
			if p.Ref.Format != nil && p.Ref.Format.ArgRef != nil {
				rs = append(rs, p.Ref.Format.ArgRef)
			}
		}
	}
	return rs
}

// templateError is a malformed template; Offset is the byte offset of the
// problem within the text.
type templateError struct {
	Offset int
	Msg    string
}

func (e *templateError) Error() string { return e.Msg }

// parseTemplate splits raw into literal text and placeholders. at gives the
// position of a byte offset of raw in the file (nil: the template's start).
func parseTemplate(raw string, pos Pos, at func(off int) Pos) (*Template, error) {
	if at == nil {
		at = func(int) Pos { return pos }
	}
	p := &templateParser{at: at, t: &Template{Raw: raw, Pos: pos}}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '{' && i+1 < len(raw) && raw[i+1] == '{':
			p.lit.WriteByte('{')
			i++
		case c == '}' && i+1 < len(raw) && raw[i+1] == '}':
			p.lit.WriteByte('}')
			i++
		case c == '}':
			return nil, &templateError{i, "unmatched '}' (write '}}' for a literal brace)"}
		case c == '{':
			end := strings.IndexByte(raw[i+1:], '}')
			if end < 0 {
				return nil, &templateError{i, "unclosed placeholder (write '{{' for a literal brace)"}
			}
			if err := p.placeholder(raw[i+1:i+1+end], i); err != nil {
				return nil, err
			}
			i += end + 1
		default:
			p.lit.WriteByte(c)
		}
	}
	if len(p.open) > 0 {
		o := p.open[len(p.open)-1]
		return nil, &templateError{o.off, fmt.Sprintf("section {%c%s} is not closed (end it with {/%s})", o.sigil, o.ref.Name(), o.ref.Name())}
	}
	p.flush()
	return p.t, nil
}

// templateParser is the state of parseTemplate: the parts so far, the
// literal text not yet a part, and the sections still open.
type templateParser struct {
	at   func(int) Pos
	t    *Template
	lit  strings.Builder
	open []openSection
}

// openSection is a section not closed yet ({?name}, {!name} or {*name}:
// its sigil), at byte offset off.
type openSection struct {
	ref   *TemplateRef
	off   int
	sigil byte
}

// each is the innermost per-item section open, or nil.
func (p *templateParser) each() *TemplateRef {
	for i := len(p.open) - 1; i >= 0; i-- {
		if p.open[i].sigil == '*' {
			return p.open[i].ref
		}
	}
	return nil
}

// flush ends the literal text so far as a part of its own.
func (p *templateParser) flush() {
	if p.lit.Len() > 0 {
		p.t.Parts = append(p.t.Parts, TemplatePart{Literal: p.lit.String()})
		p.lit.Reset()
	}
}

// placeholder adds the part that body, the text between braces at byte
// offset off, writes: a section opened ({?name} shown when the value is
// set, {!name} when it is not, {*name} once per item), a section closed
// ({/name}), or a value ({name}, {name|format}, or in a per-item section
// the item, {.} or {.|format}).
func (p *templateParser) placeholder(body string, off int) error {
	switch {
	case body != "" && strings.IndexByte("?!*", body[0]) >= 0:
		sigil := body[0]
		ref, err := parseRefPath(body[1:], off, p.at)
		if err != nil {
			return err
		}
		if len(p.open) == maxSectionDepth {
			return &templateError{off, fmt.Sprintf("section {%s}: sections nest at most %d deep", body, maxSectionDepth)}
		}
		if outer := p.each(); sigil == '*' && outer != nil {
			return &templateError{off, fmt.Sprintf("section {%s} is inside the per-item section {*%s}: per-item sections do not nest", body, outer.Name())}
		}
		p.flush()
		p.open = append(p.open, openSection{ref, off, sigil})
		p.t.Parts = append(p.t.Parts, TemplatePart{Open: ref, Not: sigil == '!', Each: sigil == '*'})
	case strings.HasPrefix(body, "/"):
		name := body[1:]
		if len(p.open) == 0 {
			return &templateError{off, fmt.Sprintf("{/%s} closes no section (open one with {?%s}, {!%s} or {*%s})", name, name, name, name)}
		}
		if top := p.open[len(p.open)-1]; top.ref.Name() != name {
			return &templateError{off, fmt.Sprintf("{/%s} closes section {%c%s}; write {/%s}", name, top.sigil, top.ref.Name(), top.ref.Name())}
		}
		p.flush()
		p.open = p.open[:len(p.open)-1]
		p.t.Parts = append(p.t.Parts, TemplatePart{Close: true})
	case body == "." || strings.HasPrefix(body, ".|"):
		list := p.each()
		if list == nil {
			return &templateError{off, fmt.Sprintf("{%s} is the item of a per-item section, {*list} … {/list}; here it is in none", body)}
		}
		ref := &TemplateRef{Path: []string{"."}, Kind: RefItem, Pos: p.at(off), Each: list}
		if _, format, ok := strings.Cut(body, "|"); ok {
			f, err := parseFormat(".", format, off, p.at)
			if err != nil {
				return err
			}
			ref.Format = f
		}
		p.flush()
		p.t.Parts = append(p.t.Parts, TemplatePart{Ref: ref})
	default:
		name, format, hasFormat := strings.Cut(body, "|")
		ref, err := parseRefPath(name, off, p.at)
		if err != nil {
			return err
		}
		if hasFormat {
			f, err := parseFormat(name, format, off, p.at)
			if err != nil {
				return err
			}
			ref.Format = f
		}
		p.flush()
		p.t.Parts = append(p.t.Parts, TemplatePart{Ref: ref})
	}
	return nil
}

// maxSectionDepth bounds nested sections.
const maxSectionDepth = 4

// parseRefPath parses the name of a placeholder or a section at offset off.
func parseRefPath(name string, off int, at func(int) Pos) (*TemplateRef, error) {
	path := strings.Split(name, ".")
	for _, p := range path {
		if !isIdent(p) {
			return nil, &templateError{off, fmt.Sprintf("placeholder {%s}: want a name like {ticketId} or {reason.closeReason}", name)}
		}
	}
	if len(path) > 2 {
		return nil, &templateError{off, fmt.Sprintf("placeholder {%s}: at most one dot (askKey.field)", name)}
	}
	return &TemplateRef{Path: path, Pos: at(off)}, nil
}

// parseFormat parses the format of placeholder {name|spec}.
func parseFormat(name, spec string, off int, at func(int) Pos) (*Format, error) {
	fname, arg, hasArg := strings.Cut(spec, ":")
	known := false
	var names []string
	for _, f := range Formats {
		names = append(names, f.Name)
		known = known || f.Name == fname
	}
	if !known {
		return nil, &templateError{off, fmt.Sprintf("placeholder {%s|%s}: unknown format %q (formats: %s)", name, spec, fname, strings.Join(names, ", "))}
	}
	if hasArg && arg == "" {
		return nil, &templateError{off, fmt.Sprintf("placeholder {%s|%s}: empty argument after ':'", name, spec)}
	}
	f := &Format{Name: fname, Arg: arg}
	bad := func(want string) error {
		return &templateError{off, fmt.Sprintf("placeholder {%s|%s}: format %s takes %s", name, spec, fname, want)}
	}
	switch fname {
	case "decimal", "percent":
		if hasArg && (len(arg) != 1 || arg[0] < '0' || arg[0] > '9') {
			return nil, bad("a number of places from 0 to 9 (" + fname + ":2)")
		}
	case "duration":
		if hasArg && !slices.Contains([]string{"ms", "s", "m", "h", "d"}, arg) {
			return nil, bad("a unit: ms, s, m, h or d (duration:m)")
		}
	case "money":
		switch {
		case !hasArg:
			return nil, bad("a currency: an ISO 4217 code (money:EUR) or the value holding one (money:currency)")
		case isCurrencyCode(arg):
		default:
			ref, err := parseRefPath(arg, off, at)
			if err != nil {
				return nil, bad("a currency: an ISO 4217 code (money:EUR) or the value holding one (money:currency)")
			}
			f.ArgRef = ref
		}
	default:
		if hasArg {
			return nil, bad("no argument")
		}
	}
	return f, nil
}

// isCurrencyCode reports whether s is written like an ISO 4217 code: three
// upper-case letters. (A value holding the currency is named otherwise.)
func isCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := range 3 {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// isIdent reports whether s is a spec identifier: a letter followed by
// letters, digits and underscores.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r == '_' || (r >= '0' && r <= '9'):
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}
