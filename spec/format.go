package spec

import (
	"fmt"
	"strings"
	"unicode"
)

// RefField is the field a resolved placeholder names (an argument, a
// continuation field or a form field), or nil for a sampled text, roots
// and {workflowId}.
func (t *Tool) RefField(ref *TemplateRef, keys map[string]*InputRequest) *Field {
	switch ref.Kind {
	case RefArgument:
		return t.Argument(ref.Path[0])
	case RefContinuation:
		return t.Continuation.Field(ref.Path[0])
	case RefTransient:
		if v := t.Continuation.TransientValue(ref.Path[0]); v != nil {
			return v.Field
		}
	case RefFormField:
		if q := keys[ref.Path[0]]; q != nil && len(ref.Path) == 2 {
			return q.Field(ref.Path[1])
		}
	case RefItem:
		if f := t.RefField(ref.Each, keys); f != nil {
			return f.Items
		}
	}
	return nil
}

// refType is the type of what a resolved placeholder names, and the string
// format of a string field ("" otherwise).
func (t *Tool) refType(ref *TemplateRef, keys map[string]*InputRequest) (FieldType, string) {
	switch ref.Kind {
	case RefWorkflowID, RefSampled:
		return TypeString, ""
	case RefRoots:
		return TypeArray, ""
	case RefAnswer:
		return 0, ""
	case RefItem:
		if ref.Each.Kind == RefRoots {
			return TypeString, "" // a root's URI
		}
	}
	if f := t.RefField(ref, keys); f != nil {
		return f.Type, f.Format
	}
	return 0, ""
}

// checkFormats checks each formatted placeholder of tpl against the type
// of the value it names (template-format): money of an integer with a
// currency that is a string or an enum, a date of a string holding one, and
// so on (Formats).
func (r *resolver) checkFormats(t *Tool, tpl *Template, keys map[string]*InputRequest, isIdempotencyKey bool) {
	for _, p := range tpl.Parts {
		if p.Open != nil && isIdempotencyKey {
			r.errorf(p.Open.Pos, "template", "an operation id names every value it is made of", "{%c%s}: an idempotency key cannot have a section", p.Sigil(), p.Open.Name())
		}
		ref := p.Ref
		if ref == nil || ref.Format == nil || ref.Kind == 0 {
			continue
		}
		f := ref.Format
		if isIdempotencyKey {
			r.errorf(ref.Pos, "template-format", "write the value as it is in an operation id", "{%s|%s}: an idempotency key takes values as they are, not formatted", ref.Name(), f.Name)
			continue
		}
		typ, strFormat := t.refType(ref, keys)
		var ok bool
		var items FieldType
		if fd := t.RefField(ref, keys); fd != nil && fd.Items != nil {
			items = fd.Items.Type
		}
		switch f.Name {
		case "int":
			ok = typ == TypeInteger
		case "decimal", "percent", "duration":
			ok = typ == TypeInteger || typ == TypeNumber
		case "money":
			ok = typ == TypeInteger
		case "date":
			ok = typ == TypeString && (strFormat == "date" || strFormat == "date-time")
		case "datetime":
			ok = typ == TypeString && strFormat == "date-time"
		case "list":
			ok = typ == TypeArray
		case "title":
			ok = typ == TypeEnum
		}
		if !ok {
			what := typeWithArticle(typ)
			switch {
			case typ == TypeString && strFormat != "":
				what = "a string of format " + strFormat
			case typ == TypeString && (f.Name == "date" || f.Name == "datetime"):
				what = "a string without a date format"
			case typ == TypeString:
				what = "a string"
			case typ == TypeArray && items != 0:
				what = "a list of " + items.String() + " values"
			}
			written := f.Name
			if f.Arg != "" {
				written += ":" + f.Arg
			}
			subject := ref.Name()
			if ref.Kind == RefItem {
				subject = "an item of " + ref.Each.Name()
			}
			r.errorf(ref.Pos, "template-format", "format "+f.Name+" takes "+formatTakes(f.Name), "{%s|%s}: %s is %s; format %s takes %s", ref.Name(), written, subject, what, f.Name, formatTakes(f.Name))
			continue
		}
		if a := f.ArgRef; a != nil && a.Kind != 0 {
			if at, _ := t.refType(a, keys); at != TypeString && at != TypeEnum {
				r.errorf(ref.Pos, "template-format", "name a string or enum value holding an ISO 4217 code, or write the code (money:EUR)",
					"{%s|money:%s}: the currency %s is %s, not a string or an enum", ref.Name(), a.Name(), a.Name(), typeWithArticle(at))
			}
		}
	}
}

func formatTakes(name string) string {
	for _, f := range Formats {
		if f.Name == name {
			return fmt.Sprintf("%s %s", article(f.Takes), f.Takes)
		}
	}
	return ""
}

func article(s string) string {
	if s != "" && (s[0] == 'a' || s[0] == 'e' || s[0] == 'i' || s[0] == 'o' || s[0] == 'u') {
		return "an"
	}
	return "a"
}

// checkTyped checks a typed confirmation: the text to type has no sections
// (it is one text), and the message shows it, placeholder by placeholder
// (or, for a fixed text, word for word): a user cannot type what they were
// not shown.
func (r *resolver) checkTyped(t *Tool, s *State) {
	g := s.Confirm
	action := gateAction(t, s)
	shown := map[string]bool{}
	for _, ref := range g.Message.Refs() {
		shown[ref.Name()] = true
	}
	fixed := true
	for _, p := range g.Typed.Parts {
		switch {
		case p.Open != nil:
			r.errorf(p.Open.Pos, "template", "write the text to type without sections", "gate %q: the text to type (typed) cannot have a section", s.Name)
			return
		case p.Ref != nil:
			fixed = false
			if p.Ref.Kind == RefTransient {
				r.errorf(p.Ref.Pos, "transient-use", "type a value the workflow carries (an argument or continuation field): what the user types must be what they were shown",
					"gate %q: the text to type uses transient value {%s}, which is computed again on each round and may change between the question and the answer", s.Name, p.Ref.Name())
				continue
			}
			if !shown[p.Ref.Name()] {
				r.errorf(p.Ref.Pos, "template", fmt.Sprintf("show it in the message: \"Type {%s} to %s.\"", p.Ref.Name(), action), "gate %q: the text to type uses {%s}, which the message does not show", s.Name, p.Ref.Name())
			}
		}
	}
	if fixed && g.Message != nil {
		text := ""
		for _, p := range g.Typed.Parts {
			text += p.Literal
		}
		lit := ""
		for _, p := range g.Message.Parts {
			lit += p.Literal
		}
		if strings.TrimSpace(text) == "" {
			r.errorf(g.Typed.Pos, "template", "name the text the user must type, such as {releaseId} or DELETE", "gate %q: the text to type is empty", s.Name)
		} else if !strings.Contains(lit, text) {
			r.errorf(g.Typed.Pos, "template", fmt.Sprintf("show it in the message: \"Type %s to %s.\"", text, action), "gate %q: the message does not show the text to type (%q)", s.Name, text)
		}
	}
}

// gateAction is what a typed confirmation's hint says typing confirms, in
// the tool's own words: its title ("Delete a customer" → "delete a
// customer"), else the effect the gate leads to (deleteCustomer → "delete
// customer"), else its name (delete_customer → "delete customer").
func gateAction(t *Tool, s *State) string {
	if title := strings.TrimRight(strings.TrimSpace(t.Title), ".!?"); title != "" {
		return lowerFirst(title)
	}
	name := t.Name
	if s.Next != nil {
		if next := t.State(s.Next.Name); next != nil && next.Effect != nil {
			name = next.Effect.Name
		}
	}
	words := splitWords(name)
	for i, w := range words {
		words[i] = lowerFirst(w)
	}
	if len(words) == 0 {
		return "confirm"
	}
	return strings.Join(words, " ")
}

// lowerFirst lower-cases the first letter of s unless it starts an
// acronym ("Deploy" → "deploy", "API" stays).
func lowerFirst(s string) string {
	r := []rune(s)
	if len(r) == 0 || len(r) > 1 && unicode.IsUpper(r[1]) {
		return s
	}
	r[0] = unicode.ToLower(r[0])
	return string(r)
}
