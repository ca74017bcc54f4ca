// Package lint checks loaded specs against the practices of reliable
// multi-round tools: no irreversible effect without a confirmation gate, no
// input asked for that belongs in the arguments, bounded and non-sensitive
// continuation state, a path to an end from every state, and more. Each
// rule has a stable id, a severity, a one-line hint and a long explanation
// (mrtrgen explain RULE). A spec silences a rule at one place with a
// reviewable reason:
//
//	lint:
//	  ignore:
//	    ask-before-discovery: The conformance suite asks in its first round.
//
// The same opt-outs accept the rules of mrtrgen breaking (package
// breaking); lint leaves those to it.
package lint

import (
	"fmt"
	"slices"

	"github.com/mrtrgen/mrtrgen/breaking"
	"github.com/mrtrgen/mrtrgen/spec"
)

// Run lints a loaded spec and returns its findings, sorted. Suppressed
// findings are dropped; suppressions that silence nothing, and suppressions
// of unknown rules, are findings themselves.
func Run(f *spec.File) spec.Diagnostics {
	c := &checker{file: f, used: map[*spec.Suppression]bool{}, graphs: map[*spec.Tool]*graph{}, goNames: map[string]string{}}
	for _, r := range registry {
		if r.check != nil {
			r.check(c, r)
		}
	}
	c.checkSuppressions()
	c.out.Sort()
	return c.out
}

// checker collects findings and applies the spec's opt-outs.
type checker struct {
	file    *spec.File
	out     spec.Diagnostics
	used    map[*spec.Suppression]bool
	graphs  map[*spec.Tool]*graph
	goNames map[string]string
}

// goName is spec.GoName, remembered: the rules ask for the same names
// many times.
func (c *checker) goName(s string) string {
	g, ok := c.goNames[s]
	if !ok {
		g = spec.GoName(s)
		c.goNames[s] = g
	}
	return g
}

// scope is the chain of places a finding belongs to, innermost first; an
// opt-out at any of them silences the finding.
type scope []*spec.LintConfig

func (c *checker) toolScope(t *spec.Tool, inner ...*spec.LintConfig) scope {
	s := scope(slices.Clone(inner))
	return append(s, t.Lint, c.file.Lint)
}

// report records a finding of rule r at pos unless an opt-out in sc
// silences it.
func (c *checker) report(r *Rule, pos spec.Pos, sc scope, format string, args ...any) {
	c.reportHint(r, r.Hint, pos, sc, format, args...)
}

// reportHint is report with a hint of its own: for a finding the rule's
// hint does not fit.
func (c *checker) reportHint(r *Rule, hint string, pos spec.Pos, sc scope, format string, args ...any) {
	if r.Mandatory() {
		sc = nil
	}
	if s := spec.Suppressing(r.ID, sc); s != nil {
		c.used[s] = true
		return
	}
	d := spec.Diagnostic{
		Pos: pos, Severity: r.Severity, Rule: r.ID,
		Message: fmt.Sprintf(format, args...), Hint: hint,
	}
	// A question asked in several states is seen by a rule once per
	// state; what it says about the question itself is said once.
	if c.file.HasQuestions() && slices.Contains(c.out, d) {
		return
	}
	c.out = append(c.out, d)
}

// checkSuppressions reports opt-outs of unknown rules and opt-outs that
// silenced nothing, so stale exceptions do not pile up.
func (c *checker) checkSuppressions() {
	for _, lc := range c.file.LintConfigs() {
		for i := range lc.Ignore {
			s := &lc.Ignore[i]
			r := Lookup(s.Rule)
			switch {
			case r == nil && breaking.Lookup(s.Rule) != nil:
				// An accepted breaking change: mrtrgen breaking applies
				// it, and reports it when it accepts nothing.
			case r == nil:
				c.out = append(c.out, spec.Diagnostic{Pos: s.Pos, Severity: spec.Error, Rule: "lint-ignore",
					Message: fmt.Sprintf("unknown lint rule %q", s.Rule), Hint: "run `mrtrgen explain` to list the rules"})
			case r.Loader():
				c.out = append(c.out, spec.Diagnostic{Pos: s.Pos, Severity: spec.Error, Rule: "lint-ignore",
					Message: fmt.Sprintf("rule %q reports a broken spec and cannot be ignored", s.Rule), Hint: "fix the spec instead"})
			case r.Mandatory():
				// A warning, not an error: specs written when the rule could
				// still be silenced keep generating; a real finding of the
				// rule is an error whatever the spec says.
				c.out = append(c.out, spec.Diagnostic{Pos: s.Pos, Severity: spec.Warning, Rule: "unused-ignore",
					Message: fmt.Sprintf("rule %q reports a spec whose generated code would not compile and cannot be ignored: this opt-out has no effect", s.Rule), Hint: "remove the opt-out"})
			case !c.used[s]:
				c.out = append(c.out, spec.Diagnostic{Pos: s.Pos, Severity: spec.Warning, Rule: "unused-ignore",
					Message: fmt.Sprintf("ignore of %q silences nothing here", s.Rule), Hint: "remove the stale opt-out"})
			}
		}
	}
}
