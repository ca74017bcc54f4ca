package lint

import (
	"github.com/mrtrgen/mrtrgen/spec"
)

// checkFormatInconsistent reports a value a tool shows the user written in
// two ways: with a format in one template ({amount|decimal:2}) and without
// it, or with another format, in another ({amount}). "Refund 50.50 EUR?"
// then "Refunded 50.5 EUR" reads as two amounts. The first formatted
// placeholder of a value, in state order, is the way it is written; every
// other placeholder of it is reported where it differs. Idempotency keys
// (which take values as they are), URLs and typed confirmation texts are
// not shown as prose and are left out.
func checkFormatInconsistent(c *checker, r *Rule) {
	type written struct {
		format string // "decimal:2"; "" without a format
		state  *spec.State
		ref    *spec.TemplateRef
	}
	for _, t := range c.file.Workflows() {
		var order []string
		uses := map[string][]written{}
		for _, s := range t.States {
			for _, tpl := range shownTemplates(s) {
				for _, p := range tpl.Parts {
					if p.Ref == nil || p.Ref.Kind == spec.RefWorkflowID {
						continue
					}
					name := p.Ref.Name()
					if p.Ref.Kind == spec.RefItem {
						// The items of one list are one value; of two, two.
						name = ". in {*" + p.Ref.Each.Name() + "}"
					}
					if _, ok := uses[name]; !ok {
						order = append(order, name)
					}
					uses[name] = append(uses[name], written{formatOf(p.Ref), s, p.Ref})
				}
			}
		}
		for _, name := range order {
			var first *written
			for i := range uses[name] {
				if uses[name][i].format != "" {
					first = &uses[name][i]
					break
				}
			}
			if first == nil {
				continue // never formatted: written one way
			}
			for _, u := range uses[name] {
				if u.format == first.format {
					continue
				}
				shown, where := u.ref.Name(), ""
				if u.ref.Kind == spec.RefItem {
					where = " in {*" + u.ref.Each.Name() + "}"
				}
				how := "without a format"
				if u.format != "" {
					how = "as {" + shown + "|" + u.format + "}"
				}
				c.report(r, u.ref.Pos, c.toolScope(t, u.state.Lint), "%s %q: state %q writes {%s}%s %s, but state %q (line %d) writes it as {%s|%s}: the user reads the same value written two ways",
					t.Kind, t.Name, u.state.Name, shown, where, how, first.state.Name, first.ref.Pos.Line, shown, first.format)
			}
		}
	}
}

// shownTemplates are the templates of s a user or a model reads as text.
func shownTemplates(s *spec.State) []*spec.Template {
	var out []*spec.Template
	for _, tpl := range s.Templates() {
		hidden := s.Idempotency != nil && tpl == s.Idempotency.Key || s.Confirm != nil && tpl == s.Confirm.Typed
		for _, q := range s.Requests {
			hidden = hidden || tpl == q.URL
		}
		if !hidden {
			out = append(out, tpl)
		}
	}
	return out
}

// formatOf writes ref's format as a spec writes it after the bar.
func formatOf(ref *spec.TemplateRef) string {
	if ref.Format == nil {
		return ""
	}
	if ref.Format.Arg == "" {
		return ref.Format.Name
	}
	return ref.Format.Name + ":" + ref.Format.Arg
}
