package generator

import (
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

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
				f.Values = commonValues(f.Values, sf.Values)
			}
			if f.Items != nil && sf.Items != nil && f.Items.Type == spec.TypeEnum && sf.Items.ValuesFrom == nil {
				items := *f.Items
				items.Values = commonValues(items.Values, sf.Items.Values)
				f.Items = &items
				if et, ok := w.enumOf[u.Items]; ok {
					w.enumOf[&items] = et
				}
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

// allowedValues is the list of values enum field f allows, of its Go type
// e: the type's list, or, for a state's own form that narrows the values,
// a list of its own.
func (w *workflow) allowedValues(f *spec.Field, e *enumType) *jen.Statement {
	if len(f.Values) >= len(e.values) {
		return jen.Id(w.enumValues(e))
	}
	var vs []jen.Code
	for _, x := range f.Values {
		vs = append(vs, jen.Id(w.enumConst(e, x.Value)))
	}
	return jen.Index().Id(e.name).Values(vs...)
}

// commonValues keeps the values of a that b allows too.
func commonValues(a, b []spec.EnumValue) []spec.EnumValue {
	return slices.DeleteFunc(slices.Clone(a), func(e spec.EnumValue) bool {
		return !slices.ContainsFunc(b, func(x spec.EnumValue) bool { return x.Value == e.Value })
	})
}
