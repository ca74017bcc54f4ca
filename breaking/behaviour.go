package breaking

import (
	"strconv"
	"strings"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Behaviour rules: the new version still does what a reviewer approved in
// the old one. Lint judges a spec on its own; these judge the change.

// guardedEffects lists the effect states of g that every path reaches only
// through accepting gate.
func guardedEffects(g *graph, gate string) []string {
	var out []string
	for _, s := range g.t.States {
		if s.Kind == vocab.StateEffect && g.guards(gate, s.Name) {
			out = append(out, strconv.Quote(s.Name))
		}
	}
	return out
}

func checkGateRemoved(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		for _, os := range p.old.States {
			if _, reached := p.og.state(os.Name); !reached || os.Kind != vocab.StateConfirm {
				continue
			}
			ns := p.new.State(os.Name)
			if ns != nil && ns.Kind == vocab.StateConfirm {
				continue
			}
			pos, sc := p.new.Pos, c.toolScope(p.new)
			if ns != nil {
				pos, sc = ns.Pos, c.toolScope(p.new, ns.Lint)
			}
			what := "the user is no longer asked this confirmation"
			if effects := guardedEffects(p.og, os.Name); len(effects) > 0 {
				what = "the user no longer confirms before " + strings.Join(effects, ", ") + " runs"
			}
			c.report(r, pos, os.Pos, sc, "gate %q of %s %q was removed or renamed: %s", os.Name, p.new.Kind, p.new.Name, what)
		}
	}
}

func checkGateAfterEffect(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		for _, og := range p.old.States {
			if og.Kind != vocab.StateConfirm {
				continue
			}
			if ng := p.new.State(og.Name); ng == nil || ng.Kind != vocab.StateConfirm {
				continue // gate-removed's
			}
			for _, oe := range p.old.States {
				ne := p.new.State(oe.Name)
				if oe.Kind != vocab.StateEffect || ne == nil || ne.Kind != vocab.StateEffect {
					continue
				}
				if p.og.guards(og.Name, oe.Name) && !p.ng.guards(og.Name, ne.Name) {
					c.report(r, ne.Pos, spec.Pos{}, c.toolScope(p.new, ne.Lint),
						"effect %q no longer runs only after gate %q is accepted: a path now reaches it without that consent, or the gate comes after it", ne.Name, og.Name)
				}
			}
		}
	}
}

func checkEffectMadeIrreversible(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		for _, ns := range p.new.States {
			os := p.old.State(ns.Name)
			if ns.Kind != vocab.StateEffect || os == nil || os.Kind != vocab.StateEffect || os.Irreversible || !ns.Irreversible {
				continue
			}
			c.report(r, ns.Pos, spec.Pos{}, c.toolScope(p.new, ns.Lint),
				"effect %q is now irreversible: what was approved as undoable no longer is", ns.Name)
		}
	}
}

func checkOperationIDChanged(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		for _, ns := range p.new.States {
			os := p.old.State(ns.Name)
			if ns.Kind != vocab.StateEffect || os == nil || os.Kind != vocab.StateEffect {
				continue
			}
			ok, nk := operationID(os), operationID(ns)
			if ok == nk {
				continue
			}
			c.report(r, ns.Idempotency.Pos, spec.Pos{}, c.toolScope(p.new, ns.Lint),
				"the operation id of effect %q changed from %q to %q: a retry across the deploy does not find the first attempt's record and runs %s again",
				ns.Name, ok, nk, ns.Effect.Name)
		}
	}
}

// operationID is the template an effect's operation id is made of.
func operationID(s *spec.State) string {
	if s.Idempotency == nil || s.Idempotency.Key == nil {
		return "{workflowId}"
	}
	return s.Idempotency.Key.Raw
}
