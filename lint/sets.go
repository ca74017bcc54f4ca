package lint

import (
	"fmt"
	"strings"

	"github.com/mrtrgen/mrtrgen/internal/machine"
	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Which continuation values are set where.
//
// Checks and effects may declare the continuation fields they set (sets:),
// on every way out or on some of a check's outcomes. A value stays set once
// set (nothing clears the continuation), so the values set on entry to a
// state are those some declaration sets on every path from the initial
// state to it: the same must-analysis as the answers' (graph.must), whose
// edges only add.

// setFlow says, for every state of one workflow, which continuation fields
// are set on entry on every path to it.
type setFlow struct {
	g    *graph
	bits map[string]int // continuation field → bit
	set  []bitset       // per state, on entry; nil for a state no walk reaches
}

func (c *checker) setFlow(t *spec.Tool) *setFlow {
	g := c.graph(t)
	sf := &setFlow{g: g, bits: map[string]int{}}
	for i, f := range t.Continuation.Fields {
		sf.bits[f.Name] = i
	}
	n := len(t.Continuation.Fields)
	sf.set = g.must(n, func(e machine.Edge, in bitset) bitset {
		out := in.Clone()
		for _, sd := range g.states[e.From].Sets {
			if b, ok := sf.bits[sd.Field.Name]; ok && sd.SetsOn(e.On) {
				out.Add(b)
			}
		}
		return out
	})
	return sf
}

// witness returns a walk from the initial state into state i on which
// field is never set, written like the generated tests' walks.
func (sf *setFlow) witness(i int, field string) string {
	return sf.g.walkTo(i, func(from int, on vocab.Edge) bool { return setsField(sf.g.states[from], field, on) })
}

func setsField(s *spec.State, field string, on vocab.Edge) bool {
	for _, sd := range s.Sets {
		if sd.Field.Name == field && sd.SetsOn(on) {
			return true
		}
	}
	return false
}

// setters describes who declares field: "lookup (on outcome several)",
// or "" when no state does.
func setters(t *spec.Tool, field string) string {
	var out []string
	for _, s := range t.States {
		for _, sd := range s.Sets {
			if sd.Field.Name != field {
				continue
			}
			w := s.Name
			if len(sd.Outcomes) > 0 {
				w += " (on outcome " + strings.Join(sd.OutcomeNames(), ", ") + ")"
			}
			out = append(out, w)
		}
	}
	return strings.Join(out, ", ")
}

// continuationRead is one place a state reads a continuation field.
type continuationRead struct {
	field string
	pos   spec.Pos
	what  string // "{subject} in the message of request pick", for findings
	verb  string // "reads", "offers the options of"
	sc    scope
	empty string // what goes wrong when it is not set
}

// continuationReads lists what state s reads from the continuation:
// template placeholders, the lists its forms offer as options, and the
// value a branch routes on.
func (c *checker) continuationReads(t *spec.Tool, s *spec.State) []continuationRead {
	var out []continuationRead
	for _, u := range c.templateUses(t, s) {
		for _, ref := range u.tpl.Refs() {
			// In a section on it, an unset value hides the section's text.
			if ref.Kind == spec.RefContinuation && !u.tpl.Guarded(ref) {
				out = append(out, continuationRead{ref.Path[0], ref.Pos, "{" + ref.Name() + "} in " + u.what, "reads", u.sc, "it would render as nothing"})
			}
			// A transient value's method runs before the state renders,
			// section or not, and reads what its reads: names.
			if ref.Kind == spec.RefTransient {
				if v := t.Continuation.TransientValue(ref.Path[0]); v != nil {
					for _, rd := range v.Reads {
						if rd.Kind == spec.RefContinuation {
							out = append(out, continuationRead{rd.Path[0], ref.Pos, "{" + ref.Name() + "} in " + u.what,
								fmt.Sprintf("computes transient value %q by %s, which reads", v.Name, v.From.Name), u.sc,
								"the method would compute the value from an empty one"})
						}
					}
				}
			}
		}
	}
	if b := s.Branch; b != nil && b.On.Kind == spec.RefContinuation {
		out = append(out, continuationRead{b.On.Path[0], b.On.Pos, "the value branch", "routes on", c.toolScope(t, s.Lint),
			"an unset enum fails the round, and an unset number or boolean takes the arm of its zero"})
	}
	for _, rd := range c.validatorReads(t, s) {
		if rd.ref.Kind == spec.RefContinuation {
			out = append(out, continuationRead{rd.ref.Path[0], rd.use.Ref.Pos, rd.what, "reads", rd.sc, "the validator would check the answer against an empty value"})
		}
	}
	for _, q := range s.Requests {
		for _, f := range q.Fields {
			e := f
			if f.Type == spec.TypeArray && f.Items != nil {
				e = f.Items
			}
			if e.ValuesFrom != nil && e.Source != nil {
				out = append(out, continuationRead{e.Source.Name, e.ValuesFrom.Pos,
					fmt.Sprintf("form field %q of request %s", f.Name, q.Key), "offers the options of",
					c.toolScope(t, f.Lint, q.Lint, s.Lint), "the form would have nothing to offer (the round fails)"})
			}
		}
	}
	return out
}

// transientReadsContinuation reports whether a transient value of the
// workflow reads a continuation field: its method runs in whatever round
// renders it, so the workflow must say who sets what it reads.
func transientReadsContinuation(t *spec.Tool) bool {
	for _, v := range t.Continuation.Transient {
		for _, rd := range v.Reads {
			if rd.Kind == spec.RefContinuation {
				return true
			}
		}
	}
	return false
}

// offersOptions reports whether a form of the workflow offers a
// continuation list (valuesFrom): such a workflow must declare who sets it.
func offersOptions(t *spec.Tool) bool {
	for _, s := range t.States {
		for _, q := range s.Requests {
			for _, f := range q.Fields {
				if f.ValuesFrom != nil || (f.Items != nil && f.Items.ValuesFrom != nil) {
					return true
				}
			}
		}
	}
	return false
}

// checkValueNotSet reports continuation values read where some path has
// not set them, in workflows that declare what their checks and effects
// set, or that offer a continuation list as options (which needs it).
// Workflows that declare nothing keep the behaviour of before sets: lint
// cannot follow what a handler sets, and does not try.
func checkValueNotSet(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		if !t.DeclaresSets() && !offersOptions(t) && !readsContinuationInValidators(t) && !transientReadsContinuation(t) {
			continue
		}
		var flow *setFlow
		for i, s := range t.States {
			for _, rd := range c.continuationReads(t, s) {
				if flow == nil {
					flow = c.setFlow(t)
				}
				bit, ok := flow.bits[rd.field]
				if !ok || flow.set[i] == nil || flow.set[i].Has(bit) {
					continue // unknown field (the loader said so) or unreachable state
				}
				who := setters(t, rd.field)
				if who == "" {
					c.report(r, rd.pos, rd.sc, "%s %q: %s in state %q %s continuation field %q, which no check or effect declares it sets (sets:); %s",
						t.Kind, t.Name, rd.what, s.Name, rd.verb, rd.field, rd.empty)
					continue
				}
				c.report(r, rd.pos, rd.sc, "%s %q: %s in state %q %s continuation field %q, which is not set on every path here (only %s sets it); on the walk %s %s",
					t.Kind, t.Name, rd.what, s.Name, rd.verb, rd.field, who, flow.witness(i, rd.field), rd.empty)
			}
		}
	}
}

// checkOptionsMaxItems reports a continuation list of options, or a list a
// form offers as options, without maxItems: the form, the answer and the
// token it travels in would have no bound.
func checkOptionsMaxItems(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		offered := map[*spec.Field]bool{}
		for _, s := range t.States {
			for _, q := range s.Requests {
				for _, f := range q.Fields {
					for _, e := range []*spec.Field{f, f.Items} {
						if e != nil && e.Source != nil {
							offered[e.Source] = true
						}
					}
				}
			}
		}
		for _, f := range t.Continuation.Fields {
			if f.MaxItems != nil || f.Type != spec.TypeArray || f.Items == nil {
				continue
			}
			if f.Items.Type == spec.TypeOption || offered[f] {
				c.report(r, f.Pos, c.toolScope(t, f.Lint), "%s %q: continuation field %q holds options but has no maxItems", t.Kind, t.Name, f.Name)
			}
		}
	}
}
