package lint

import (
	"slices"
	"strings"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// summaryRules are the rules of formatted templates (rules.go registers them).
var summaryRules = []*Rule{gateOmitsEffectValues}

var gateOmitsEffectValues = &Rule{
	ID: "gate-omits-effect-values", Severity: spec.Warning,
	Summary: "a confirmation's message does not show a value the effect after it acts on",
	Hint:    "name the value in the gate's message (\"Refund {amount|money:currency} of order {orderId}?\"), or silence this with a reason",
	Why: `A user who says yes to a confirmation agrees to what they read. The effect after the
gate acts on the values its operation id is made of (idempotency key: "refund-{orderId}"):
when the message leaves one out, the user confirms without seeing what will be done to
what ("Refund the order?" for a refund of order 1042). Lint follows every way from the
gate through checks and branches to the effects it reaches, and reports each value of
their operation ids the message (or a typed confirmation's text) does not name. An
effect with the workflow's own id ({workflowId}) names nothing to show, and a value the
effect itself sets (sets:) cannot be shown before it runs.`,
	Bad: `confirmRefund:
  confirm:
    message: Refund the order?
  next: refund
refund:
  effect: refundOrder
  idempotency: {key: "refund-{orderId}"}
  next: refunded`,
	Good: `confirmRefund:
  confirm:
    message: Refund {amount|money:currency} of order {orderId}?
  next: refund
refund:
  effect: refundOrder
  idempotency: {key: "refund-{orderId}"}
  next: refunded`,
	check: checkGateOmitsEffectValues,
}

// checkGateOmitsEffectValues reports, per gate, the values of the
// operation ids of the effects it leads to (through checks and branches)
// that its message does not name.
func checkGateOmitsEffectValues(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		for _, s := range t.States {
			g := s.Confirm
			if g == nil || g.Message == nil || s.Next == nil {
				continue
			}
			shown := map[string]bool{}
			for _, tpl := range []*spec.Template{g.Message, g.Typed} {
				for _, ref := range tpl.Refs() {
					shown[ref.Name()] = true
				}
			}
			for _, e := range effectsAfter(t, s.Next.Name) {
				if e.Idempotency == nil || e.Idempotency.IsDefault() {
					continue
				}
				var missing []string
				for _, ref := range e.Idempotency.Key.Refs() {
					setsIt := ref.Kind == spec.RefContinuation && slices.ContainsFunc(e.Sets, func(d *spec.SetDecl) bool { return d.Field.Name == ref.Name() })
					if ref.Kind != spec.RefWorkflowID && !setsIt && !shown[ref.Name()] && !slices.Contains(missing, "{"+ref.Name()+"}") {
						missing = append(missing, "{"+ref.Name()+"}")
					}
				}
				if len(missing) > 0 {
					c.report(r, g.Message.Pos, c.toolScope(t, s.Lint),
						"%s %q: the message of gate %q does not show %s, which effect %s (operation id %s) acts on",
						t.Kind, t.Name, s.Name, strings.Join(missing, ", "), e.Effect.Name, e.Idempotency.Key.Raw)
				}
			}
		}
	}
}

// effectsAfter are the effect states reached from state from through
// checks and branches only (an ask, a gate or an end stops the walk), in
// state order.
func effectsAfter(t *spec.Tool, from string) []*spec.State {
	seen := map[string]bool{}
	var out []*spec.State
	queue := []string{from}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		s := t.State(name)
		if s == nil {
			continue
		}
		switch s.Kind {
		case vocab.StateEffect:
			out = append(out, s)
		case vocab.StateCheck, vocab.StateBranch:
			for _, e := range s.Edges() {
				queue = append(queue, e.To)
			}
		}
	}
	slices.SortFunc(out, func(a, b *spec.State) int { return slices.Index(t.States, a) - slices.Index(t.States, b) })
	return out
}
