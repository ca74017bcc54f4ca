package spec

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Reusable questions.
//
// A workflow's questions block defines input requests by key, in the
// syntax of an ask entry; an ask asks one by naming its key with the value
// question (ask: {reason: question}). The states that ask it share one
// *InputRequest: one key is one answer (f.Reason), one answer type and one
// continuation entry wherever it is asked, and what a state asked before
// is forgotten when a state asking the same question is entered again.

// askQuestion is the value of an ask entry that asks the workflow's
// question of the entry's key.
const askQuestion = "question"

// questionUse is an ask entry naming a question, before it is resolved.
type questionUse struct {
	state *State
	key   string
	node  *yaml.Node // the entry's value
	// form is the value of question: in the mapping form of the entry
	// (ask: {reason: {question: {extend: ..., narrow: ...}}}), nil in
	// the scalar form.
	form *yaml.Node
}

// isQuestionUse reports whether an ask entry's value names a question:
// the scalar question, or a mapping whose only key is question (the
// state's own form of it, siteforms.go).
func isQuestionUse(v *yaml.Node) bool {
	if v == nil {
		return false
	}
	if v.Kind == yaml.ScalarNode {
		return v.Value == askQuestion
	}
	return v.Kind == yaml.MappingNode && len(v.Content) == 2 && v.Content[0].Value == askQuestion
}

// questionForm is the value of question: in an entry's mapping form, or nil.
func questionForm(v *yaml.Node) *yaml.Node {
	if v.Kind == yaml.MappingNode {
		return v.Content[1]
	}
	return nil
}

// decodeQuestions decodes a workflow's questions block, sorted by key.
func (d *decoder) decodeQuestions(n *yaml.Node) []*InputRequest {
	var out []*InputRequest
	for _, rp := range pairs(n) {
		d.checkIdent(rp.k, "question")
		if r := d.decodeRequest(rp); r != nil {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *InputRequest) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// resolveQuestions puts each question into the asks that name it and
// reports names of no question and questions no ask names.
func (d *decoder) resolveQuestions(t *Tool, uses []questionUse, keys map[string]*yaml.Node) {
	used := map[string]bool{}
	for _, u := range uses {
		q := t.Question(u.key)
		if q == nil {
			hint := "define it in the workflow's questions block"
			if len(t.Questions) > 0 {
				var names []string
				for _, q := range t.Questions {
					names = append(names, q.Key)
				}
				hint += " (questions: " + strings.Join(names, ", ") + ")"
			}
			d.errorf(u.node, "unknown-reference", hint, "state %q asks question %q, which the workflow does not define", u.state.Name, u.key)
			continue
		}
		used[u.key] = true
		u.state.Requests = append(u.state.Requests, q)
		slices.SortFunc(u.state.Requests, func(a, b *InputRequest) int { return strings.Compare(a.Key, b.Key) })
	}
	d.resolveSiteForms(t, uses)
	for _, q := range t.Questions {
		if !used[q.Key] {
			at := keys[q.Key]
			d.errorf(at, "ask", "ask it in a state (ask: {"+q.Key+": question}) or remove it", "question %q is asked in no state", q.Key)
		}
	}
}

// Question returns the workflow's question with the given key, or nil.
func (t *Tool) Question(key string) *InputRequest {
	for _, q := range t.Questions {
		if q.Key == key {
			return q
		}
	}
	return nil
}

// Requests lists the workflow's input requests once each, in state order:
// a question asked in several states is listed where it is first asked.
func (t *Tool) Requests() []*InputRequest {
	var out []*InputRequest
	for _, s := range t.States {
		for _, q := range s.Requests {
			if !slices.Contains(out, q) {
				out = append(out, q)
			}
		}
	}
	return out
}

// Shared reports whether q is one of the workflow's questions (asked in
// one or more states), not an entry of a single ask.
func (t *Tool) Shared(q *InputRequest) bool { return slices.Contains(t.Questions, q) }

// AskersOf returns the states that ask q, in state order.
func (t *Tool) AskersOf(q *InputRequest) []*State {
	var out []*State
	for _, s := range t.States {
		if slices.Contains(s.Requests, q) {
			out = append(out, s)
		}
	}
	return out
}

// resolveQuestions refuses what a question cannot be yet: a form field
// checked by a validator with context, whose bound (maxAttempts) and
// reads belong to one ask.
func (r *resolver) resolveQuestions(t *Tool) {
	syncSiteForms(t)
	for _, q := range t.Questions {
		for _, fd := range q.Fields {
			for _, ref := range fd.Validate {
				if v := r.f.Validator(ref.Name); v != nil && v.InContext() {
					r.errorf(ref.Pos, "validator-type", "ask the question in the ask itself, or use a validator without reads:", "question %q: form field %q uses validator %q, which reads the flow (reads:); a question asked in several states cannot use a validator with context yet", q.Key, fd.Name, ref.Name)
				}
			}
		}
	}
}

// HasQuestions reports whether a workflow of the file defines questions.
func (f *File) HasQuestions() bool {
	for _, t := range f.Workflows() {
		if len(t.Questions) > 0 {
			return true
		}
	}
	return false
}
