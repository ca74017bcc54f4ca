package generator

import (
	"slices"
	"strings"

	"github.com/mrtrgen/mrtrgen/spec"
)

// States' own forms of a question (spec.State.Forms): each asking state
// has its own request builder, requested schema and decoder, named after
// the state; all of them answer with the question's one answer type.

// forms lists the forms q is asked with: the form of each state asking it
// (in state order) when some state changes it, else q alone.
func (w *workflow) forms(q *spec.InputRequest) []*spec.InputRequest {
	if !w.t.HasSiteForms(q) {
		return []*spec.InputRequest{q}
	}
	var out []*spec.InputRequest
	for _, s := range w.t.AskersOf(q) {
		out = append(out, s.Form(q))
	}
	return out
}

// siteSuffix names a state's own form: "InAskManager".
func siteSuffix(form *spec.InputRequest) string {
	if form.Site == nil {
		return ""
	}
	return "In" + spec.GoName(form.AskedIn)
}

// shared is the question a form belongs to (the form itself when it is
// not a state's own form).
func shared(form *spec.InputRequest) *spec.InputRequest {
	if form.Site != nil {
		return form.Site
	}
	return form
}

// answerForm is a form whose valid answers every state asking q accepts,
// for the tests' answers (one answer by key): each field required where any
// state requires it, with the values and bounds every state allows.
func (w *workflow) answerForm(q *spec.InputRequest) *spec.InputRequest {
	forms := w.forms(q)
	if len(forms) == 1 {
		return q
	}
	m := *q
	m.Fields = nil
	for _, u := range q.Fields {
		f := *u
		for _, form := range forms {
			sf := form.Field(u.Name)
			if sf == nil {
				continue
			}
			f.Required = f.Required || sf.Required
			if f.Type == spec.TypeEnum && sf.ValuesFrom == nil {
				f.Values = slices.DeleteFunc(slices.Clone(f.Values), func(e spec.EnumValue) bool {
					return !slices.ContainsFunc(sf.Values, func(x spec.EnumValue) bool { return x.Value == e.Value })
				})
			}
			f.MinLength, f.MaxLength = tighter(f.MinLength, sf.MinLength, true), tighter(f.MaxLength, sf.MaxLength, false)
			f.MinItems, f.MaxItems = tighter(f.MinItems, sf.MinItems, true), tighter(f.MaxItems, sf.MaxItems, false)
			if sf.Minimum != nil && (f.Minimum == nil || *sf.Minimum > *f.Minimum) {
				f.Minimum = sf.Minimum
			}
			if sf.Maximum != nil && (f.Maximum == nil || *sf.Maximum < *f.Maximum) {
				f.Maximum = sf.Maximum
			}
		}
		m.Fields = append(m.Fields, &f)
		if et, ok := w.enumOf[u]; ok {
			w.enumOf[&f] = et
		}
	}
	return &m
}

func tighter(a, b *int, isMin bool) *int {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case isMin == (*b > *a):
		return b
	}
	return a
}

// siteOf is " as state X asks it" for a state's own form, else "".
func siteOf(form *spec.InputRequest) string {
	if form.Site == nil {
		return ""
	}
	return " as state " + form.AskedIn + " asks it"
}

// siteFormDoc says on the generated page how a state's form of a question
// differs from the question's.
func siteFormDoc(form *spec.InputRequest) string {
	var ds []string
	if len(form.Extended) > 0 {
		ds = append(ds, "adds "+codeList(form.Extended)+" (absent from the answer where other states ask the question)")
	}
	if len(form.Narrowed) > 0 {
		ds = append(ds, "narrows "+codeList(form.Narrowed))
	}
	if len(ds) == 0 {
		return "This state asks the question's form as it is; other states ask their own."
	}
	return "This state's own form of the question: it " + strings.Join(ds, " and ") + "."
}

func codeList(names []string) string {
	var out []string
	for _, n := range names {
		out = append(out, code(n))
	}
	return strings.Join(out, ", ")
}
