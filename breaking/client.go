package breaking

import (
	"slices"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Client rules: an MCP client written against the old tool list keeps
// working. They apply to every workflow, waiting or not.

func checkToolRemoved(c *comparer, r *Rule)   { c.reportRemoved(r, c.old.Tools) }
func checkPromptRemoved(c *comparer, r *Rule) { c.reportRemoved(r, c.old.Prompts) }

// reportRemoved reports the workflows of old that the new version lacks:
// at the start of the new file, or, when the whole file was deleted, at
// the workflow in the old one.
func (c *comparer) reportRemoved(r *Rule, old []*spec.Tool) {
	for _, ot := range old {
		if c.newNames[workflowKey{ot.Kind, ot.Name}] {
			continue
		}
		pos, was, where := ot.Pos, spec.Pos{}, "the spec was deleted"
		if c.new != nil {
			pos, was, where = c.new.Pos, ot.Pos, "it was removed or renamed"
		}
		waiting := ""
		if newGraph(ot).mayWait() {
			waiting = "; workflows waiting for their next round are refused"
		}
		c.report(r, pos, was, c.fileScope(), "%s %q is gone (%s): clients calling it get an unknown-%s error%s",
			ot.Kind, ot.Name, where, ot.Kind, waiting)
	}
}

// argPlace is where an argument change is reported and accepted: at the
// argument in the new version, or at its workflow when it was removed.
func argPlace(c *comparer, p *pair, ch argChange) (pos, was spec.Pos, sc scope) {
	if ch.new == nil {
		return p.new.Pos, ch.old.Pos, c.toolScope(p.new)
	}
	return ch.new.Pos, spec.Pos{}, c.toolScope(p.new, ch.new.Lint)
}

func argName(ch argChange) string {
	if ch.new != nil {
		return ch.new.Name
	}
	return ch.old.Name
}

// reportArgs reports the argument changes of one kind, saying what
// clients see.
func (c *comparer) reportArgs(r *Rule, kind argChangeKind, consequence string) {
	for _, p := range c.pairs {
		for _, ch := range p.args {
			if ch.kind != kind {
				continue
			}
			pos, was, sc := argPlace(c, p, ch)
			c.report(r, pos, was, sc, "argument %q of %s %q %s: %s", argName(ch), p.new.Kind, p.new.Name, ch.detail, consequence)
		}
	}
}

func checkArgumentAddedRequired(c *comparer, r *Rule) {
	c.reportArgs(r, argAddedRequired, "clients that do not send it are refused (invalid arguments)")
}

func checkArgumentRemoved(c *comparer, r *Rule) {
	c.reportArgs(r, argRemoved, "clients that still send it are refused (unknown argument)")
	for _, p := range c.pairs {
		if p.old.NonInteractive && !p.new.NonInteractive {
			c.report(r, p.new.Pos, spec.Pos{}, c.toolScope(p.new),
				"%s %q is no longer nonInteractive: clients that send their answers up front in \"inputs\" are refused (unknown argument)", p.new.Kind, p.new.Name)
		}
	}
}

func checkArgumentRetyped(c *comparer, r *Rule) {
	c.reportArgs(r, argRetyped, "clients sending the old type are refused (invalid arguments)")
}

func checkArgumentNarrowed(c *comparer, r *Rule) {
	c.reportArgs(r, argNarrowed, "values clients could send before are refused (invalid arguments)")
}

func checkCapabilityRequired(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		for _, cp := range p.new.Requires {
			if !slices.Contains(p.old.Requires, cp) {
				c.report(r, p.new.RequiresPos, spec.Pos{}, c.toolScope(p.new),
					"%s %q now requires the %s capability: clients without it are refused on every round", p.new.Kind, p.new.Name, cp)
			}
		}
	}
}

// notFoundEnd reports whether state name of t is a terminal state marked
// notFound.
func notFoundEnd(t *spec.Tool, name string) bool {
	s := t.State(name)
	return s != nil && s.Kind == vocab.StateTerminal && s.NotFound
}

func checkNotFoundChanged(c *comparer, r *Rule) {
	for _, p := range c.pairs {
		if p.new.Kind != vocab.KindResource {
			continue
		}
		for _, ns := range p.new.States {
			if notFoundEnd(p.new, ns.Name) && !notFoundEnd(p.old, ns.Name) {
				c.report(r, ns.Pos, spec.Pos{}, c.toolScope(p.new, ns.Lint),
					"state %q of resource %q now ends as resource-not-found (-32602, -32002 before 2026-07-28): readers that end there got -32000 or another end before",
					ns.Name, p.new.Name)
			}
		}
		for _, os := range p.old.States {
			if !notFoundEnd(p.old, os.Name) || notFoundEnd(p.new, os.Name) {
				continue
			}
			pos, sc := p.new.Pos, c.toolScope(p.new)
			if ns := p.new.State(os.Name); ns != nil {
				pos, sc = ns.Pos, c.toolScope(p.new, ns.Lint)
			}
			c.report(r, pos, os.Pos, sc,
				"state %q of resource %q no longer ends as resource-not-found: readers of a URI that names nothing get -32000 or another end instead",
				os.Name, p.new.Name)
		}
	}
}
