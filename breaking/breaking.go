// Package breaking compares two versions of a spec, the one deployed and
// the one about to be, and reports the changes that break something the
// deployed build set in motion (docs/evolution.md has the rules):
//
//   - continuation: a workflow waiting for its next round holds a token the
//     new build refuses (a state it waits in removed, a carried value
//     retyped or narrowed, a gate it passed changed);
//   - client: an MCP client written against the old tool list fails (a tool
//     removed, an argument removed, retyped, narrowed or newly required);
//   - behaviour: the spec no longer does what a reviewer approved (a gate
//     removed or no longer before its effect, an effect made irreversible,
//     an operation id changed so retries run the effect again).
//
// Each rule has a stable id, a category, a severity and a long explanation
// (mrtrgen explain RULE). A spec accepts an intentional break with a
// reason, with the same opt-out as lint's, at the narrowest place the
// finding belongs to in the new version:
//
//	lint:
//	  ignore:
//	    state-removed: Drained for one TTL before this deploy (ticket OPS-12).
package breaking

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Category says what a breaking change breaks.
type Category string

const (
	// Continuation changes strand workflows waiting for their next round.
	Continuation Category = "continuation"
	// Client changes break MCP clients written against the old tools.
	Client Category = "client"
	// Behaviour changes alter what a reviewer approved.
	Behaviour Category = "behaviour"
)

// Severity ranks a finding. Errors break something; warnings deserve a look;
// info findings are compatible changes worth knowing.
type Severity int

const (
	Info Severity = iota + 1
	Warning
	Error
)

var severityNames = map[Severity]string{Info: "info", Warning: "warning", Error: "error"}

func (s Severity) String() string { return severityNames[s] }

// ParseSeverity reads "error", "warning" or "info".
func ParseSeverity(s string) (Severity, error) {
	for sev, name := range severityNames {
		if name == s {
			return sev, nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q (want error, warning or info)", s)
}

// Finding is one change between the two versions.
type Finding struct {
	Rule     string
	Category Category
	Severity Severity
	// Pos is in the new version: the changed thing, or for a removed one
	// the place that held it (its tool, state or file).
	Pos spec.Pos
	// Was is where a removed or changed thing was in the old version (its
	// File is the old version's path, as given to the loader); zero when
	// the new position says it all.
	Was     spec.Pos
	Message string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", f.Pos, f.Severity, f.Message, f.Rule)
}

// Compare reports what changes from old to cur, sorted by position. old
// and cur are the same spec file at two revisions, the deployed one and
// the one about to be; a nil cur means the file was deleted (every
// workflow of old is removed), a nil old that it is new (nothing to
// break). Findings the new version accepts with a reason
// (lint: ignore: RULE: reason) are left out; accepts that accept nothing
// are reported (unused-accept), so stale ones do not hide a later break.
func Compare(old, cur *spec.File) []Finding {
	if old == nil {
		return nil
	}
	c := &comparer{old: old, new: cur, used: map[*spec.Suppression]bool{}}
	c.pairWorkflows()
	for _, r := range registry {
		if r.check != nil {
			r.check(c, r)
		}
	}
	c.checkAccepts()
	slices.SortStableFunc(c.out, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col),
			cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Message, b.Message),
		)
	})
	return c.out
}

// comparer holds one comparison's state.
type comparer struct {
	old, new *spec.File
	// pairs are the workflows present in both versions (same kind and
	// name), in the new file's order.
	pairs []*pair
	// newNames holds the new version's workflows, by kind and name.
	newNames map[workflowKey]bool
	out      []Finding
	used     map[*spec.Suppression]bool
}

type workflowKey struct {
	kind vocab.Kind
	name string
}

// pair is one workflow in both versions, with their state graphs.
type pair struct {
	old, new *spec.Tool
	og, ng   *graph
	// waits: a workflow of this tool can wait for a next round in either
	// build, so tokens of it exist during and after the deploy.
	waits bool
	args  []argChange
}

func (c *comparer) pairWorkflows() {
	c.newNames = map[workflowKey]bool{}
	if c.new == nil {
		return
	}
	old := map[workflowKey]*spec.Tool{}
	for _, ot := range c.old.Workflows() {
		old[workflowKey{ot.Kind, ot.Name}] = ot
	}
	for _, nt := range c.new.Workflows() {
		c.newNames[workflowKey{nt.Kind, nt.Name}] = true
		ot := old[workflowKey{nt.Kind, nt.Name}]
		if ot == nil {
			continue
		}
		p := &pair{old: ot, new: nt, og: newGraph(ot), ng: newGraph(nt)}
		p.waits = p.og.mayWait() || p.ng.mayWait()
		p.args = argChanges(ot, nt)
		c.pairs = append(c.pairs, p)
	}
}

// scope is the chain of places in the new version a finding belongs to,
// innermost first; an accept at any of them accepts it.
type scope []*spec.LintConfig

func (c *comparer) fileScope() scope {
	if c.new == nil {
		return nil
	}
	return scope{c.new.Lint}
}

func (c *comparer) toolScope(t *spec.Tool, inner ...*spec.LintConfig) scope {
	return append(append(scope(slices.Clone(inner)), t.Lint), c.fileScope()...)
}

// report records a finding of r unless the new version accepts it.
func (c *comparer) report(r *Rule, pos, was spec.Pos, sc scope, format string, args ...any) {
	if s := spec.Suppressing(r.ID, sc); s != nil {
		c.used[s] = true
		return
	}
	c.out = append(c.out, Finding{
		Rule: r.ID, Category: r.Category, Severity: r.Severity,
		Pos: pos, Was: was, Message: fmt.Sprintf(format, args...),
	})
}

// checkAccepts reports accepts of breaking rules that accepted nothing in
// this comparison. An accept is meant for one change: left in place after
// it shipped, it would silently accept the next break of its rule there.
// Opt-outs of lint rules are lint's business.
func (c *comparer) checkAccepts() {
	if c.new == nil {
		return
	}
	r := Lookup("unused-accept")
	for _, lc := range c.new.LintConfigs() {
		for i := range lc.Ignore {
			s := &lc.Ignore[i]
			if Lookup(s.Rule) == nil || c.used[s] {
				continue
			}
			c.out = append(c.out, Finding{
				Rule: r.ID, Category: Lookup(s.Rule).Category, Severity: r.Severity, Pos: s.Pos,
				Message: fmt.Sprintf("the accept of %s accepts nothing against this revision; remove it once the change has shipped", s.Rule),
			})
		}
	}
}
