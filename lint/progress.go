package lint

import (
	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Rules of slow states (progress: true).
var progressRules = []*Rule{
	{
		ID: "slow-state-on-cycle", Severity: spec.Warning,
		Summary: "a slow state (progress: true) is on a cycle, so it runs again on every pass",
		Hint:    "do the slow work before the loop (keep its result in the continuation), or silence the finding with the reason the repetition is needed",
		Why: `A check or effect runs every time the workflow enters its state. A state declared slow
(progress: true) on a cycle, such as the way back of askAgain or a branch that returns
to an earlier ask, makes the user wait through it, with its progress notifications
starting from 0 again, each time the workflow loops: the loop costs the slow work each
pass. Usually the slow part can run once before the loop, its result kept in the
continuation, and the loop's check stays fast.`,
		Bad: `askSize: {ask: {...}, next: checkStock}
checkStock: {check: sizeInStock, progress: true, next: done, askAgain: {state: askSize, maxAttempts: 3, onExhausted: none}}`,
		Good: `scan: {check: scanInventory, progress: true, next: askSize}
askSize: {ask: {...}, next: checkStock}
checkStock: {check: sizeInStock, next: done, askAgain: {state: askSize, maxAttempts: 3, onExhausted: none}}`,
		check: checkSlowOnCycle,
	},
}

// checkSlowOnCycle reports slow states a cycle leads back to.
func checkSlowOnCycle(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		g := c.graph(t)
		for i, s := range t.States {
			if !s.Progress || (s.Kind != vocab.StateCheck && s.Kind != vocab.StateEffect) {
				continue
			}
			if g.after(i).Has(i) {
				c.report(r, s.Pos, c.toolScope(t, s.Lint), "%s %q: state %s is slow (progress: true) and a cycle of the workflow leads back to it: every pass runs it again", t.Kind, t.Name, s.Name)
			}
		}
	}
}
