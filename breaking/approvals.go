package breaking

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Approvals (docs/approvals.md). An approval's policy is part of what its
// gate confirms (the gate digest covers it), so any change to it, an
// approval added or removed included, is gate-changed's for a workflow
// waiting after the gate. What a reviewer approved is approval-weakened's
// (fewer or other people may now let the effect run) and
// approval-changed's (stricter, or only the times or where an expiry goes).

var approvalBehaviourRules = []*Rule{
	{
		ID: "approval-weakened", Category: Behaviour, Severity: Error,
		Summary: "an approval gate lets the action through on less: its approval removed, fewer approvers, the requester let in, or another role",
		Hint:    "keep the policy, or have the change approved and accept it with the reason",
		Why: `An approval is where someone other than the requester (or several people) agreed to
the action. Removing the approval (a plain confirmation: the requester's own yes
suffices), lowering its count, loosening the requester rule (excluded → page → chat),
dropping its role (anyone signed in may approve) or naming another role lets effects run
on less than a reviewer approved.`,
		Old: `approve:
  confirm: {message: "Send {amount} EUR to {payee}?", approval: {approvers: finance, count: 2}}
  next: recheck`,
		New: `approve:
  confirm: {message: "Send {amount} EUR to {payee}?", approval: {approvers: finance, count: 1, requester: chat}}
  next: recheck`,
		Fixed: `approve:
  confirm: {message: "Send {amount} EUR to {payee}?", approval: {approvers: finance, count: 2}}
  next: recheck`,
		check: checkApprovalWeakened,
	},
}

var approvalInfoRules = []*Rule{
	{
		ID: "approval-changed", Category: Behaviour, Severity: Info,
		Summary: "an approval was added to a gate, made stricter, or its times or onExpire changed (compatible)",
		Hint:    "nothing to do; approvals pending at the deploy keep the policy they were requested under",
		Why: `Compatible for clients: the gate asks for more, or waits differently. An approval
requested before the deploy keeps its record and policy (deadline, reminders, approvers
resolved then); a workflow that had already passed the gate and waits after it is
refused (gate-changed), as for any change to what a gate confirms. A new or moved
onExpire changes where an expired approval ends: without one the workflow ends with
outcome expired.`,
		Old:   `approve: {confirm: {message: "Send {amount} EUR?", approval: {deadline: 24h}}, next: recheck}`,
		New:   `approve: {confirm: {message: "Send {amount} EUR?", approval: {deadline: 48h, remind: [1h]}}, next: recheck, onExpire: expired}`,
		check: checkApprovalChanged,
	},
}

// requesterRank orders the requester rules from the strictest.
var requesterRank = []string{spec.RequesterExcluded, spec.RequesterPage, spec.RequesterChat}

// approvalWeaker says how policy n lets through on less than o ("" when
// it does not).
func approvalWeaker(o, n *spec.Approval) string {
	switch {
	case o == nil:
		return ""
	case n == nil:
		return "its approval was removed: a confirmation by the requester now passes it"
	}
	var ds []string
	if n.Count < o.Count {
		ds = append(ds, fmt.Sprintf("count %d → %d", o.Count, n.Count))
	}
	if slices.Index(requesterRank, n.Requester) > slices.Index(requesterRank, o.Requester) {
		ds = append(ds, fmt.Sprintf("requester %s → %s", o.Requester, n.Requester))
	}
	if o.Approvers != n.Approvers {
		ds = append(ds, fmt.Sprintf("approvers %s → %s", roleText(o.Approvers), roleText(n.Approvers)))
	}
	return strings.Join(ds, "; ")
}

// approvalStricterOrTimed says how n differs from o otherwise: added,
// stricter, other times, other onExpire.
func approvalStricterOrTimed(os, ns *spec.State) string {
	o, n := os.Approval(), ns.Approval()
	var ds []string
	switch {
	case o == nil && n != nil:
		ds = append(ds, "an approval was added ("+n.Summary()+")")
	case o != nil && n != nil:
		if n.Count > o.Count {
			ds = append(ds, fmt.Sprintf("count %d → %d", o.Count, n.Count))
		}
		if slices.Index(requesterRank, n.Requester) < slices.Index(requesterRank, o.Requester) {
			ds = append(ds, fmt.Sprintf("requester %s → %s", o.Requester, n.Requester))
		}
		if o.Deadline != n.Deadline {
			ds = append(ds, fmt.Sprintf("deadline %s → %s", spec.DurationText(o.Deadline), spec.DurationText(n.Deadline)))
		}
		if !slices.Equal(o.Remind, n.Remind) {
			ds = append(ds, "reminders changed")
		}
		if o.Escalate != n.Escalate || o.EscalateTo != n.EscalateTo {
			ds = append(ds, "escalation changed")
		}
	}
	if oe, ne := stateRefName(os.OnExpire), stateRefName(ns.OnExpire); n != nil && oe != ne {
		ds = append(ds, fmt.Sprintf("onExpire %s → %s", expiryText(oe), expiryText(ne)))
	}
	return strings.Join(ds, "; ")
}

func roleText(r string) string {
	if r == "" {
		return "anyone signed in"
	}
	return "role " + r
}

func stateRefName(r *spec.StateRef) string {
	if r == nil {
		return ""
	}
	return r.Name
}

func expiryText(s string) string {
	if s == "" {
		return "(ends as expired)"
	}
	return s
}

// gatePairs calls f for each gate of the old spec still a gate in the new.
func (c *comparer) gatePairs(f func(p *pair, os, ns *spec.State)) {
	for _, p := range c.pairs {
		for _, os := range p.old.States {
			ns := p.new.State(os.Name)
			if os.Kind != vocab.StateConfirm || ns == nil || ns.Kind != vocab.StateConfirm {
				continue // gate-removed's
			}
			f(p, os, ns)
		}
	}
}

func checkApprovalWeakened(c *comparer, r *Rule) {
	c.gatePairs(func(p *pair, os, ns *spec.State) {
		if d := approvalWeaker(os.Approval(), ns.Approval()); d != "" {
			what := ""
			if effects := guardedEffects(p.og, os.Name); len(effects) > 0 {
				what = " before " + strings.Join(effects, ", ")
			}
			c.report(r, ns.Confirm.Pos, os.Confirm.Pos, c.toolScope(p.new, ns.Lint), "approval gate %q of %s %q lets the action through%s on less (%s)", ns.Name, p.new.Kind, p.new.Name, what, d)
		}
	})
}

func checkApprovalChanged(c *comparer, r *Rule) {
	c.gatePairs(func(p *pair, os, ns *spec.State) {
		if d := approvalStricterOrTimed(os, ns); d != "" {
			c.report(r, ns.Confirm.Pos, os.Confirm.Pos, c.toolScope(p.new, ns.Lint), "approval gate %q of %s %q changed: %s", ns.Name, p.new.Kind, p.new.Name, d)
		}
	})
}

// approvalDiff says how two gates' approvals differ, for gate-changed.
func approvalDiff(o, n *spec.Approval) string {
	switch {
	case o == nil && n == nil:
		return ""
	case o == nil:
		return "an approval added"
	case n == nil:
		return "its approval removed"
	case o.Summary() != n.Summary():
		return fmt.Sprintf("approval %q → %q", o.Summary(), n.Summary())
	}
	return ""
}
