package lint

import (
	"strconv"
	"strings"

	"github.com/mrtrgen/mrtrgen/internal/machine"
	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Which answers are given where.
//
// An ask's answers exist once the workflow has left the ask by its next
// edge: declining or cancelling it gives none, and going (back) into an ask
// forgets what it was answered before (the generated code clears a
// reentrant ask's answers on entry, so it asks again). The answers given on
// entry to a state are those given on every path from the initial state to
// it: a must-analysis (graph.must), the intersection over all incoming
// edges, computed to a fixed point with a worklist.

// answerFlow says, for every state of one workflow, which input request
// keys are answered on entry on every path to it.
type answerFlow struct {
	g     *graph
	keys  map[string]int // request key → bit
	owner []int          // bit → state whose ask holds the request
	own   []bitset       // per state: the bits of its own requests
	given []bitset       // per state, on entry; nil for a state no walk reaches
}

func (c *checker) answers(t *spec.Tool) *answerFlow {
	g := c.graph(t)
	a := &answerFlow{g: g, keys: map[string]int{}}
	for i, s := range g.states {
		for _, q := range s.Requests {
			if _, dup := a.keys[q.Key]; !dup {
				a.keys[q.Key] = len(a.owner)
				a.owner = append(a.owner, i)
			}
		}
	}
	n := len(a.owner)
	a.own = make([]bitset, len(g.states))
	for i, s := range g.states {
		a.own[i] = newBitset(n)
		for _, q := range s.Requests {
			if a.owner[a.keys[q.Key]] == i || t.Shared(q) {
				// A question is answered by every state asking it.
				a.own[i].Add(a.keys[q.Key])
			}
		}
	}
	a.given = g.must(n, func(e machine.Edge, in bitset) bitset { return a.leavingWith(e.From, e.On, in) })
	return a
}

// at returns the answers a template of state i can use: those given on
// entry, less the state's own (an ask's message is shown before its
// answer, and entering an ask again forgets its earlier answer).
func (a *answerFlow) at(i int) bitset { return a.atWith(i, a.given[i]) }

// notGiven reports whether the answer to key may be missing at state i,
// and its bit: false for an unknown key (the loader reported it) and for
// a state no walk reaches.
func (a *answerFlow) notGiven(i int, key string) (int, bool) {
	bit, ok := a.keys[key]
	if !ok || a.given[i] == nil || a.at(i).Has(bit) {
		return bit, false
	}
	return bit, true
}

// atWith is at for the answers in given on entry.
func (a *answerFlow) atWith(i int, in bitset) bitset {
	out := in.Clone()
	out.AndNot(a.own[i])
	return out
}

// leavingWith returns the answers given after state i, entered with in,
// is left by an edge of kind on: an ask's next edge adds its own.
func (a *answerFlow) leavingWith(i int, on vocab.Edge, in bitset) bitset {
	out := a.atWith(i, in)
	if on == vocab.Next && a.g.states[i].Kind == vocab.StateAsk {
		out.Or(a.own[i])
	}
	return out
}

// witness returns a walk from the initial state into state i on which the
// answer to key is not given, written like the generated tests' walks
// (lookup>askReason>(decline)done).
//
// A walk that never takes the ask's next edge arrives only where the
// answer is missing, and it finds every such arrival: the first visit of
// the ask never has its answer, and after the last visit the answer is
// missing only if the ask was left by decline or cancel.
func (a *answerFlow) witness(i int, key string) string {
	bit := a.keys[key]
	return a.g.walkTo(i, func(from int, on vocab.Edge) bool { return a.own[from].Has(bit) && on == vocab.Next })
}

// askers names the states that ask the request of bit, for findings:
// "askReason", or "askFree" or "askPaid" for a question.
func (a *answerFlow) askers(bit int) string {
	var names []string
	for i, s := range a.g.states {
		if a.own[i].Has(bit) {
			names = append(names, strconv.Quote(s.Name))
		}
	}
	return strings.Join(names, " or ")
}

// templateUse is one template of a state and the opt-out scopes that apply
// to a finding in it.
type templateUse struct {
	tpl  *spec.Template
	what string // "the message of askReason", for findings
	sc   scope
}

func (c *checker) templateUses(t *spec.Tool, s *spec.State) []templateUse {
	var out []templateUse
	add := func(tpl *spec.Template, what string, sc scope) {
		if tpl != nil {
			out = append(out, templateUse{tpl, what, sc})
		}
	}
	for _, q := range s.Requests {
		sc := c.toolScope(t, q.Lint, s.Lint)
		add(q.Message, "the message of request "+q.Key, sc)
		add(q.Prompt, "the prompt of request "+q.Key, sc)
	}
	sc := c.toolScope(t, s.Lint)
	if s.Confirm != nil {
		add(s.Confirm.Message, "the confirmation message", sc)
	}
	if s.Idempotency != nil {
		add(s.Idempotency.Key, "the idempotency key", sc)
	}
	add(s.Message, "the result message", sc)
	for _, m := range s.Messages {
		add(m.Text, "a "+m.Role+" message", sc)
	}
	return out
}

// checkAnswerNotGiven reports placeholders naming an answer that some path
// to the template has not given.
func checkAnswerNotGiven(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		var flow *answerFlow
		for i, s := range t.States {
			for _, u := range c.templateUses(t, s) {
				for _, ref := range u.tpl.Refs() {
					if !isAnswer(ref) || u.tpl.AnswerGuarded(ref) {
						continue // a section shows its text only when the answer is there
					}
					if flow == nil {
						flow = c.answers(t)
					}
					bit, missing := flow.notGiven(i, ref.Path[0])
					if !missing {
						continue
					}
					if flow.own[i].Has(bit) {
						c.report(r, ref.Pos, u.sc, "%s %q: {%s} in %s of state %q names the answer to %q, which is asked in this same state: it is not given yet when the text is shown",
							t.Kind, t.Name, ref.Name(), u.what, s.Name, ref.Path[0])
						continue
					}
					c.report(r, ref.Pos, u.sc, "%s %q: {%s} in %s of state %q names the answer to %q, which is not given on every path here (it is given only after %s by its next edge); it would render as nothing on the walk %s",
						t.Kind, t.Name, ref.Name(), u.what, s.Name, ref.Path[0], flow.askers(bit), flow.witness(i, ref.Path[0]))
				}
			}
		}
	}
	checkValidatorAnswers(c, r)
}

func isAnswer(ref *spec.TemplateRef) bool {
	switch ref.Kind {
	case spec.RefFormField, spec.RefSampled, spec.RefRoots:
		return true
	}
	return false
}

// mayBeAbsent reports whether a value the generated code renders may be
// missing: not required and without a default (as the generator decides
// whether a field is optional), or the answer of an optional request.
func mayBeAbsent(f *spec.Field) bool { return !f.Required && f.Default == nil }

// checkOptionalInTemplate reports placeholders naming a value that may be
// absent where the template renders: an optional argument, an optional
// form field, or the answer of an optional request. Answers not given at
// all are answer-not-given's.
func checkOptionalInTemplate(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		requests := map[string]*spec.InputRequest{}
		for _, s := range t.States {
			for _, q := range s.Requests {
				if requests[q.Key] == nil {
					requests[q.Key] = q
				}
			}
		}
		for _, s := range t.States {
			for _, u := range c.templateUses(t, s) {
				for _, ref := range u.tpl.Refs() {
					if u.tpl.Guarded(ref) {
						continue // in a section shown only when the value is set
					}
					var why string
					switch ref.Kind {
					case spec.RefArgument:
						if a := t.Argument(ref.Path[0]); a != nil && mayBeAbsent(a) {
							why = "argument " + a.Name + " is optional and has no default"
						}
					case spec.RefFormField, spec.RefSampled, spec.RefRoots:
						q := requests[ref.Path[0]]
						switch {
						case q == nil:
						case q.Optional:
							why = "request " + q.Key + " is optional (left out when the client cannot answer it)"
						case ref.Kind == spec.RefFormField:
							if without := askedWithout(t, q, ref.Path[1]); without != "" {
								why = "form field " + ref.Name() + " is added by a state's own form (extend), and " + without + " asks question " + q.Key + " without it"
							} else if f := q.Field(ref.Path[1]); f != nil && mayBeAbsent(f) {
								why = "form field " + ref.Name() + " is not required and has no default"
							}
						}
					}
					if why == "" {
						continue
					}
					effect := "renders as nothing when it is absent"
					if s.Idempotency != nil && u.tpl == s.Idempotency.Key {
						effect = "is left out of the operation id when it is absent, so an absent and an empty value share one id"
					}
					c.report(r, ref.Pos, u.sc, "%s %q: {%s} in %s of state %q: %s; the placeholder %s", t.Kind, t.Name, ref.Name(), u.what, s.Name, why, effect)
				}
			}
		}
	}
}

// askedWithout names the states asking question q with a form of their
// own that lacks field name (an answer given there never has it), or "".
func askedWithout(t *spec.Tool, q *spec.InputRequest, name string) string {
	if !t.HasSiteForms(q) {
		return ""
	}
	var names []string
	for _, s := range t.AskersOf(q) {
		if s.Form(q).Field(name) == nil {
			names = append(names, strconv.Quote(s.Name))
		}
	}
	return strings.Join(names, " and ")
}
