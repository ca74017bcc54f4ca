package spec

import (
	"fmt"
	"strings"
)

// Template is a message with placeholders: "Provide the reason for closing
// ticket {ticketId}." A placeholder names an argument ({ticketId}), a
// continuation field ({subject}), an answer ({reason.closeReason} for a
// form field, {summary} for a sampled text, {workspace} for roots), or the
// built-in {workflowId}. "{{" and "}}" stand for literal braces.
type Template struct {
	Raw   string
	Parts []TemplatePart
	Pos   Pos
}

// TemplatePart is a literal run of text or a placeholder.
type TemplatePart struct {
	Literal string
	Ref     *TemplateRef // nil for a literal
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
)

// TemplateRef is one placeholder.
type TemplateRef struct {
	Path []string // "reason.closeReason" → ["reason", "closeReason"]
	Kind RefKind  // resolved by the loader
	Pos  Pos      // position of the placeholder itself (approximate inside folded scalars)
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
		if p.Ref != nil {
			rs = append(rs, p.Ref)
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
	t := &Template{Raw: raw, Pos: pos}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t.Parts = append(t.Parts, TemplatePart{Literal: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '{' && i+1 < len(raw) && raw[i+1] == '{':
			lit.WriteByte('{')
			i++
		case c == '}' && i+1 < len(raw) && raw[i+1] == '}':
			lit.WriteByte('}')
			i++
		case c == '}':
			return nil, &templateError{i, "unmatched '}' (write '}}' for a literal brace)"}
		case c == '{':
			end := strings.IndexByte(raw[i+1:], '}')
			if end < 0 {
				return nil, &templateError{i, "unclosed placeholder (write '{{' for a literal brace)"}
			}
			name := raw[i+1 : i+1+end]
			path := strings.Split(name, ".")
			for _, p := range path {
				if !isIdent(p) {
					return nil, &templateError{i, fmt.Sprintf("placeholder {%s}: want a name like {ticketId} or {reason.closeReason}", name)}
				}
			}
			if len(path) > 2 {
				return nil, &templateError{i, fmt.Sprintf("placeholder {%s}: at most one dot (askKey.field)", name)}
			}
			flush()
			t.Parts = append(t.Parts, TemplatePart{Ref: &TemplateRef{Path: path, Pos: at(i)}})
			i += end + 1
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return t, nil
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
