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

// parseTemplate splits raw into literal text and placeholders. Errors name
// the offending column within the scalar.
func parseTemplate(raw string, pos Pos) (*Template, error) {
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
			return nil, fmt.Errorf("unmatched '}' at offset %d (write '}}' for a literal brace)", i)
		case c == '{':
			end := strings.IndexByte(raw[i+1:], '}')
			if end < 0 {
				return nil, fmt.Errorf("unclosed placeholder at offset %d (write '{{' for a literal brace)", i)
			}
			name := raw[i+1 : i+1+end]
			path := strings.Split(name, ".")
			for _, p := range path {
				if !isIdent(p) {
					return nil, fmt.Errorf("placeholder {%s} at offset %d: want a name like {ticketId} or {reason.closeReason}", name, i)
				}
			}
			if len(path) > 2 {
				return nil, fmt.Errorf("placeholder {%s} at offset %d: at most one dot (askKey.field)", name, i)
			}
			flush()
			refPos := pos
			if pos.Line > 0 && !strings.Contains(raw[:i], "\n") {
				refPos.Col += i
			}
			t.Parts = append(t.Parts, TemplatePart{Ref: &TemplateRef{Path: path, Pos: refPos}})
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
