package spec

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// A state's own form of a question.
//
// An ask names a question with the scalar question (ask: {reason:
// question}): the state asks the question's form. The mapping form names
// it with its changes for this state:
//
//	ask:
//	  reason:
//	    question:
//	      extend: {fields: {ticket: {type: string, required: true}}}
//	      narrow: {fields: {kind: {values: [resolved]}}}
//
// extend adds fields (in the syntax of form fields) that only this state
// asks; narrow restricts fields of the question: fewer enum values, tighter
// bounds, required where the question leaves them optional. The key stays
// the question's, so there is still one answer and one answer type: the
// question's fields plus every field an extension adds, each of those
// optional (a pointer), since a state that does not extend never sets it.
// Each state sends and validates exactly its own form.

// siteNarrowKeys are what a narrowing may say about a field.
var siteNarrowKeys = []string{"type", "values", "required", "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems"}

// resolveSiteForms builds the forms of the states that ask a question with
// changes, and of the other states asking that question, and widens each
// such question by the fields extensions add (optional).
func (d *decoder) resolveSiteForms(t *Tool, uses []questionUse) {
	changed := map[string]bool{}
	for _, u := range uses {
		if u.form != nil && t.Question(u.key) != nil {
			changed[u.key] = true
		}
	}
	if len(changed) == 0 {
		return
	}
	base := map[string][]*Field{}
	for _, q := range t.Questions {
		if changed[q.Key] {
			base[q.Key] = slices.Clone(q.Fields)
		}
	}
	added := map[string]map[string]*Field{} // question → extension field → its first definition
	for _, u := range uses {
		q := t.Question(u.key)
		if q == nil || !changed[u.key] {
			continue
		}
		form := *q
		form.Site, form.AskedIn, form.Fields = q, u.state.Name, slices.Clone(base[q.Key])
		if u.form != nil {
			d.siteForm(q, &form, u, added)
		}
		if u.state.Forms == nil {
			u.state.Forms = map[string]*InputRequest{}
		}
		u.state.Forms[q.Key] = &form
	}
	for _, q := range t.Questions {
		for _, f := range added[q.Key] {
			// The shared answer: absent wherever the state does not
			// extend, so optional, and without a default to fill in.
			u := *f
			u.Required, u.Default = false, nil
			q.Fields = append(q.Fields, &u)
		}
		slices.SortFunc(q.Fields, func(a, b *Field) int { return strings.Compare(a.Name, b.Name) })
	}
}

// siteForm applies the extend and narrow of use u to form, a copy of
// question q asked in u.state.
func (d *decoder) siteForm(q, form *InputRequest, u questionUse, added map[string]map[string]*Field) {
	var doc struct{ Extend, Narrow ynode }
	decodeInto(u.form, &doc)
	if doc.Extend.Node == nil && doc.Narrow.Node == nil {
		d.errorf(u.form, "question-form", "write "+u.key+": question to ask the question as it is", "state %q asks question %q with neither extend nor narrow", u.state.Name, u.key)
		return
	}
	if q.Kind != vocab.Elicit {
		d.errorf(u.form, "question-form", "only a form (elicit) has fields to extend or narrow", "state %q changes question %q, which is not a form", u.state.Name, u.key)
		return
	}
	if doc.Narrow.Node != nil {
		for _, p := range pairs(fieldsOf(doc.Narrow.Node)) {
			i := slices.IndexFunc(form.Fields, func(f *Field) bool { return f.Name == p.key })
			if i < 0 {
				d.errorf(p.k, "question-form", "narrow only fields of the question ("+fieldNames(form.Fields)+"); add a field with extend", "state %q narrows field %q, which question %q does not have", u.state.Name, p.key, u.key)
				continue
			}
			if n := d.narrowField(form.Fields[i], p, u); n != nil {
				form.Fields[i] = n
				form.Narrowed = append(form.Narrowed, p.key)
			}
		}
	}
	if doc.Extend.Node != nil {
		fields := fieldsOf(doc.Extend.Node)
		for _, f := range d.decodeFields(fields, fieldForm) {
			if q.Field(f.Name) != nil && slices.ContainsFunc(form.Fields, func(g *Field) bool { return g.Name == f.Name }) {
				d.errorfAt(f.Pos, "question-form", "narrow it instead (narrow: {fields: {"+f.Name+": {...}}}): an extension adds a field", "state %q extends question %q with field %q, which the question already has", u.state.Name, u.key, f.Name)
				continue
			}
			if f.Default != nil {
				d.errorfAt(f.Pos, "question-form", "leave the default out, or make the field required", "state %q extends question %q with field %q, which has a default: the shared answer holds an added field as optional, absent where it is not asked", u.state.Name, u.key, f.Name)
				continue
			}
			if prev := added[q.Key][f.Name]; prev != nil {
				if why := sameAnswerType(prev, f); why != "" {
					d.errorfAt(f.Pos, "question-form", "define the field the same way wherever it is added (its bounds and required may differ)", "field %q added to question %q %s than where it is added at %s: one key has one answer type", f.Name, u.key, why, prev.Pos)
					continue
				}
			} else {
				if added[q.Key] == nil {
					added[q.Key] = map[string]*Field{}
				}
				added[q.Key][f.Name] = f
			}
			f.Written = len(form.Fields) + f.Written
			form.Fields = append(form.Fields, f)
			form.Extended = append(form.Extended, f.Name)
		}
		slices.SortFunc(form.Fields, func(a, b *Field) int { return strings.Compare(a.Name, b.Name) })
	}
	slices.Sort(form.Extended)
	slices.Sort(form.Narrowed)
}

// fieldsOf is the fields mapping of an extend or narrow.
func fieldsOf(n *yaml.Node) *yaml.Node {
	for _, p := range pairs(n) {
		if p.key == "fields" {
			return p.v
		}
	}
	return nil
}

func fieldNames(fs []*Field) string {
	var names []string
	for _, f := range fs {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// sameAnswerType says how two definitions of an added field would type
// the answer differently ("" when they would not).
func sameAnswerType(a, b *Field) string {
	switch {
	case a.Type != b.Type:
		return fmt.Sprintf("is of type %s here, other", b.Type)
	case a.Type == TypeEnum && !slices.Equal(values(a.Values), values(b.Values)):
		return "has other values here"
	case a.Items != nil && b.Items != nil && (a.Items.Type != b.Items.Type || !slices.Equal(values(a.Items.Values), values(b.Items.Values))):
		return "has other items here"
	case goTypeName(a) != goTypeName(b):
		return "is bound to Go type " + goTypeName(b) + " here, other"
	}
	return ""
}

// goTypeName is a field's goType as written ("its JSON type" without one).
func goTypeName(f *Field) string {
	if f.GoType == nil {
		return "none"
	}
	return f.GoType.String()
}

func values(vs []EnumValue) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Value)
	}
	return out
}

// narrowField returns a copy of f restricted as p says, or nil when the
// narrowing is refused (reported): it may only take away.
func (d *decoder) narrowField(f *Field, p pair, u questionUse) *Field {
	n := *f
	ok := true
	refuse := func(at *yaml.Node, hint, format string, args ...any) {
		d.errorf(at, "question-form", hint, "state %q, question %q, field %q: "+format, append([]any{u.state.Name, u.key, f.Name}, args...)...)
		ok = false
	}
	for _, kp := range pairs(p.v) {
		if !slices.Contains(siteNarrowKeys, kp.key) {
			refuse(kp.k, "a narrowing may say "+strings.Join(siteNarrowKeys, ", "), "%s cannot be narrowed", kp.key)
			continue
		}
		switch kp.key {
		case "type":
			if kp.v.Value != f.Type.String() {
				refuse(kp.v, "leave type out of a narrowing, or add a field of another name with extend", "a field cannot change type (%s at the question, %s here)", f.Type, kp.v.Value)
			}
		case "required":
			switch kp.v.Value {
			case "true":
				n.Required = true
			case "false":
				if f.Required {
					refuse(kp.v, "a narrowing only restricts: leave required out", "required: false widens a required field")
				}
			default:
				refuse(kp.v, "write true or false", "required is not a boolean")
			}
		case "values":
			d.narrowValues(f, &n, kp, refuse)
		case "minLength", "maxLength":
			if f.Type != TypeString {
				refuse(kp.k, "minLength and maxLength narrow a string", "%s does not fit a field of type %s", kp.key, f.Type)
				continue
			}
			n.MinLength, n.MaxLength = d.tighterInt(kp, f.MinLength, f.MaxLength, n.MinLength, n.MaxLength, refuse)
		case "minItems", "maxItems":
			if f.Type != TypeArray {
				refuse(kp.k, "minItems and maxItems narrow a list", "%s does not fit a field of type %s", kp.key, f.Type)
				continue
			}
			n.MinItems, n.MaxItems = d.tighterInt(kp, f.MinItems, f.MaxItems, n.MinItems, n.MaxItems, refuse)
		case "minimum", "maximum":
			if f.Type != TypeNumber && f.Type != TypeInteger {
				refuse(kp.k, "minimum and maximum narrow a number", "%s does not fit a field of type %s", kp.key, f.Type)
				continue
			}
			d.narrowRange(f, &n, kp, refuse)
		}
	}
	if n.MinLength != nil && n.MaxLength != nil && *n.MinLength > *n.MaxLength ||
		n.MinItems != nil && n.MaxItems != nil && *n.MinItems > *n.MaxItems ||
		n.Minimum != nil && n.Maximum != nil && *n.Minimum > *n.Maximum {
		refuse(p.k, "a narrowed field must still allow a value", "its bounds allow no value")
	}
	if !ok {
		return nil
	}
	return &n
}

// refuser reports a narrowing refused at a node, with a hint.
type refuser = func(at *yaml.Node, hint, format string, args ...any)

// narrowValues keeps, in n (a copy of f), the enum values kp lists: some
// of the question's, in the question's order.
func (d *decoder) narrowValues(f, n *Field, kp pair, refuse refuser) {
	target := n
	if f.Type == TypeArray && f.Items != nil {
		items := *f.Items
		n.Items, target = &items, &items
	}
	if target.Type != TypeEnum || target.ValuesFrom != nil {
		refuse(kp.k, "narrow values of an enum field with fixed values", "values narrow an enum, and this field has no fixed values")
		return
	}
	if kp.v.Kind != yaml.SequenceNode || len(kp.v.Content) == 0 {
		refuse(kp.v, "list some of the field's values", "values must be a non-empty list")
		return
	}
	var kept []EnumValue
	for _, v := range kp.v.Content {
		i := slices.IndexFunc(target.Values, func(e EnumValue) bool { return e.Value == v.Value })
		if i < 0 {
			refuse(v, "a narrowing only restricts: use values of the question ("+strings.Join(values(target.Values), ", ")+")", "value %q is not one of the question's", v.Value)
			return
		}
		if !slices.ContainsFunc(kept, func(e EnumValue) bool { return e.Value == v.Value }) {
			kept = append(kept, target.Values[i])
		}
	}
	// Kept in the question's order, the order clients show.
	slices.SortStableFunc(kept, func(a, b EnumValue) int {
		return slices.IndexFunc(target.Values, func(e EnumValue) bool { return e.Value == a.Value }) -
			slices.IndexFunc(target.Values, func(e EnumValue) bool { return e.Value == b.Value })
	})
	target.Values = kept
	if f.Default != nil && f.Type == TypeEnum && !slices.ContainsFunc(kept, func(e EnumValue) bool { return fmt.Sprint(f.Default) == e.Value }) {
		refuse(kp.v, "keep the default value "+fmt.Sprint(f.Default)+" among the values", "the field's default would not be allowed here")
	}
}

// narrowRange applies a minimum or maximum of a narrowing to n (a copy of
// f), refusing one that would allow more than the question's.
func (d *decoder) narrowRange(f, n *Field, kp pair, refuse refuser) {
	v := d.floatPtr(kp.v)
	if v == nil {
		return
	}
	if kp.key == "minimum" {
		if f.Minimum != nil && *v < *f.Minimum {
			refuse(kp.v, fmt.Sprintf("use a minimum of at least %v (the question's)", *f.Minimum), "minimum %v widens the question's %v", *v, *f.Minimum)
		}
		n.Minimum = v
		return
	}
	if f.Maximum != nil && *v > *f.Maximum {
		refuse(kp.v, fmt.Sprintf("use a maximum of at most %v (the question's)", *f.Maximum), "maximum %v widens the question's %v", *v, *f.Maximum)
	}
	n.Maximum = v
}

// tighterInt applies a min or max bound of a narrowing, refusing one that
// would allow more than the question's (qmin, qmax).
func (d *decoder) tighterInt(kp pair, qmin, qmax, lo, hi *int, refuse refuser) (*int, *int) {
	v := d.intPtr(kp.v)
	if strings.HasPrefix(kp.key, "min") {
		if qmin != nil && *v < *qmin {
			refuse(kp.v, fmt.Sprintf("use %s of at least %d (the question's)", kp.key, *qmin), "%s %d widens the question's %d", kp.key, *v, *qmin)
		}
		return v, hi
	}
	if qmax != nil && *v > *qmax {
		refuse(kp.v, fmt.Sprintf("use %s of at most %d (the question's)", kp.key, *qmax), "%s %d widens the question's %d", kp.key, *v, *qmax)
	}
	return lo, v
}

// Form is the form state s asks for request q: its own form of a question
// that differs by state, or q itself.
func (s *State) Form(q *InputRequest) *InputRequest {
	if f := s.Forms[q.Key]; f != nil {
		return f
	}
	return q
}

// HasSiteForms reports whether question q is asked with a form of its own
// in some state of t (so each state asking it sends its own form).
func (t *Tool) HasSiteForms(q *InputRequest) bool {
	for _, s := range t.States {
		if s.Forms[q.Key] != nil && slices.Contains(s.Requests, q) {
			return true
		}
	}
	return false
}

// syncSiteForms gives the fields of states' own forms what resolving the
// question's fields found: the continuation list a dynamic field offers.
func syncSiteForms(t *Tool) {
	for _, s := range t.States {
		for key, form := range s.Forms {
			q := t.Question(key)
			if q == nil {
				continue
			}
			for _, f := range form.Fields {
				u := q.Field(f.Name)
				if u == nil {
					continue
				}
				if f.Source == nil {
					f.Source = u.Source
				}
				if f.Items != nil && u.Items != nil && f.Items.Source == nil {
					f.Items.Source = u.Items.Source
				}
			}
		}
	}
}
