package lint

import (
	"strings"

	"github.com/mrtrgen/mrtrgen/internal/machine"
	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// ask-before-discovery: MRTR is for what becomes necessary during
// execution. A question the caller could have answered up front belongs in
// the tool's arguments, and two shapes of it are seen:
//
//   - an ask some walk reaches before any check or effect ran;
//   - a form question reached only through checks that passed (their next
//     edge) and branches on arguments, whose message, fields and options
//     use nothing the tool discovered: no continuation field (a check or
//     effect set it), no earlier answer, no valuesFrom, no validator with
//     context reading one of them. A check that merely passed ("the
//     invoice's customer exists") does not make the question necessary;
//     what it found would show in the question.
//
// Effects, gates, earlier asks, a check's other outcomes and branches on
// discovered values are all discoveries: a question after them is not
// reported.

// upFrontHint is the hint of the second shape, which the rule's hint
// (about questions asked first) does not quite cover.
const upFrontHint = "take it as an argument (the check can refuse a bad value as it refuses the call); " +
	"if the answer depends on what the check found, show that in the question ({placeholder} of the continuation field it sets)"

func checkAskBeforeDiscovery(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		var undiscovered bitset
		for i, s := range t.States {
			if s.Kind != vocab.StateAsk {
				continue
			}
			g := c.graph(t)
			if undiscovered == nil {
				undiscovered = g.pathAvoiding(isKind(vocab.StateCheck, vocab.StateEffect))
			}
			if undiscovered.Has(i) {
				var keys []string
				for _, q := range s.Requests {
					keys = append(keys, q.Key)
				}
				c.report(r, s.Pos, c.toolScope(t, s.Lint), "%s %q: state %q asks for %s before any check or effect has run", t.Kind, t.Name, s.Name, strings.Join(keys, ", "))
				continue
			}
			keys := c.upFrontQuestions(t, s)
			if len(keys) == 0 || !g.reachedOnlyThrough(i, discoversNothing) {
				continue
			}
			walk := g.walkTo(i, func(from int, on vocab.Edge) bool { return !discoversNothing(g.states[from], on) })
			c.reportHint(r, upFrontHint, s.Pos, c.toolScope(t, s.Lint),
				"%s %q: state %q asks for %s after checks that only passed (%s), and %s nothing the tool discovered (no continuation field, earlier answer or valuesFrom): the caller could give it in the arguments",
				t.Kind, t.Name, s.Name, strings.Join(keys, ", "), walk, usesNothing(len(keys)))
		}
	}
}

func usesNothing(n int) string {
	if n == 1 {
		return "its question uses"
	}
	return "those questions use"
}

// discoversNothing reports whether leaving state from by edge on tells the
// workflow nothing the caller did not know: a check's success (its next
// edge), or an arm of a branch on an argument.
func discoversNothing(from *spec.State, on vocab.Edge) bool {
	switch from.Kind {
	case vocab.StateCheck:
		return on == vocab.Next
	case vocab.StateBranch:
		return from.Branch != nil && from.Branch.On.Kind == spec.RefArgument
	}
	return false
}

// reachedOnlyThrough reports whether state i is reachable, but not the
// initial state, and every walk from the initial state that first enters
// it takes only edges pure accepts. Walks that passed i before (an ask
// again, a loop back) are not first entries: they do not count.
func (g *graph) reachedOnlyThrough(i int, pure func(from *spec.State, on vocab.Edge) bool) bool {
	initial := g.Initial()
	if initial < 0 || initial == i {
		return false
	}
	notPast := func(e machine.Edge) bool { return e.From != i }
	reach := g.Spread([]int{initial}, notPast)
	if !reach.Has(i) {
		return false
	}
	// Where an impure edge taken before i leads: anything reached from
	// there was reached after a discovery.
	var impure []int
	reach.Each(func(j int) bool {
		if j != i {
			for _, e := range g.Out(j) {
				if !pure(g.states[j], e.On) {
					impure = append(impure, e.To)
				}
			}
		}
		return true
	})
	return !g.Spread(impure, notPast).Has(i)
}

// upFrontQuestions returns the keys of the form questions of ask s that
// use nothing the workflow discovered: their message reads only arguments
// (and the workflow id), no field offers a continuation list (valuesFrom),
// and no validator with context of theirs reads a continuation field or an
// answer. A form with a sensitive field is not one: arguments cannot be
// sensitive (they pass through the caller and its model), so what it asks
// has no place there.
func (c *checker) upFrontQuestions(t *spec.Tool, s *spec.State) []string {
	reads := c.validatorReads(t, s)
	var out []string
	for _, q := range s.Requests {
		if q.Kind != vocab.Elicit || !readsOnlyArguments(q.Message) || offersDiscovered(q.Fields) || asksSensitive(q.Fields) {
			continue
		}
		validated := false
		for _, rd := range reads {
			if rd.use.Request == q && !givenUpFront(rd.ref.Kind) {
				validated = true
			}
		}
		if !validated {
			out = append(out, q.Key)
		}
	}
	return out
}

func readsOnlyArguments(tpl *spec.Template) bool {
	if tpl == nil {
		return true
	}
	for _, ref := range tpl.Refs() {
		if !givenUpFront(ref.Kind) {
			return false
		}
	}
	return true
}

// givenUpFront reports whether a value of kind k is there before the
// workflow does anything: the arguments, and the workflow id.
func givenUpFront(k spec.RefKind) bool { return k == spec.RefArgument || k == spec.RefWorkflowID }

// offersDiscovered reports whether a form field offers a continuation
// list as its options (valuesFrom), itself or as its items.
func offersDiscovered(fields []*spec.Field) bool {
	for _, f := range fields {
		if f.ValuesFrom != nil || f.Items != nil && f.Items.ValuesFrom != nil {
			return true
		}
	}
	return false
}

// asksSensitive reports whether a form field is sensitive.
func asksSensitive(fields []*spec.Field) bool {
	for _, f := range fields {
		if f.Sensitive || f.Items != nil && f.Items.Sensitive {
			return true
		}
	}
	return false
}
