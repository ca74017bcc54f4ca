package lint

import (
	"time"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Approvals (docs/approvals.md): a gate with an approval block. The
// loader checks the policy itself (rule approval); an approval gate is a
// confirmation gate for every gate rule, and its expire edge, like
// decline, confirms nothing.

var approvalLoaderRules = []*Rule{
	{ID: "approval", Severity: spec.Error,
		Summary: "an approval policy cannot work as written: reminders out of order or after the deadline, a deadline over 720h, an approval with typed, in a prompt or a resource, or onExpire without an approval",
		Hint:    "see docs/spec.md, Approvals",
		Why: `An approval (approval: on a confirmation gate) makes the workflow wait, durably, for
people the policy admits; its times count from the request. A reminder or an escalation at
or after the deadline would come when nobody can approve any more, and reminders are sent
in the order written, so they must be ascending and distinct. A deadline is at most 720h
(30 days): longer processes are workflows of their own. An approval replaces a typed
confirmation (the approvers decide on the message, on the approval page), so a gate has one
or the other. Only a tool's call can wait for people: prompts and resources are read, not
run. onExpire is where an approval goes when its deadline passes, so it needs an approval.`,
		Bad: `approve:
  confirm:
    message: Send {amount} EUR to {payee}?
    approval: {deadline: 8h, remind: [2h, 1h, 8h]}
  next: recheck`,
		Good: `approve:
  confirm:
    message: Send {amount} EUR to {payee}?
    approval: {deadline: 8h, remind: [1h, 2h]}
  next: recheck
  onExpire: expired`},
}

var approvalRules = []*Rule{
	{
		ID: "expired-outcome-misplaced", Severity: spec.Warning,
		Summary: "a terminal state of outcome expired is reached by something other than an approval's expiry",
		Hint:    "point only onExpire of approval gates at it, and end other ways in a cancelled or failed terminal state",
		Why: `Outcome expired tells the caller, the audit trail and the metrics that an approval's
deadline passed before it was approved: nothing was decided. A workflow that ends there
after a decline, a check's outcome or an effect reports an expiry that never happened, and
clients that resume or escalate expired approvals would act on it. Keep the expired
terminal for the expire edges (onExpire) of approval gates.`,
		Bad: `approve: {confirm: {message: "Pay?", approval: {}}, next: pay, onDecline: expired, onExpire: expired}
expired: {terminal: expired, message: Not approved in time.}`,
		Good: `approve: {confirm: {message: "Pay?", approval: {}}, next: pay, onDecline: declined, onExpire: expired}
declined: {terminal: cancelled, message: Declined.}
expired: {terminal: expired, message: Not approved in time.}`,
		check: checkExpiredOutcome,
	},
	{
		ID: "approval-outlives-task", Severity: spec.Warning,
		Summary: "a tool that runs as a task waits for an approval longer than the task lives",
		Hint:    "set task.ttl (and task.timeout, if any) longer than the approval's deadline, or shorten the deadline",
		Why: `A task waits for an approval working, asking nothing, and the approval resumes it
(docs/approvals.md). The task's record lives task.ttl (1h by default) and a timeout fails it:
an approval given after either comes when the client following the task has lost it (the
approval itself is kept, and a new call finds it, but the task the client polls is gone).`,
		Bad: `task: {ttl: 1h}
states:
  approve: {confirm: {message: "Pay?", approval: {deadline: 24h}}, next: pay}`,
		Good: `task: {ttl: 25h}
states:
  approve: {confirm: {message: "Pay?", approval: {deadline: 24h}}, next: pay}`,
		check: checkApprovalOutlivesTask,
	},
}

// defaultTaskTTL is the runtime's task TTL when a spec gives none
// (mrtr/tasks).
const defaultTaskTTL = time.Hour

// checkApprovalOutlivesTask reports each approval gate of a task tool
// whose deadline is past the task's ttl or timeout.
func checkApprovalOutlivesTask(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		if t.Task == nil {
			continue
		}
		ttl := t.Task.TTL.D
		if ttl == 0 {
			ttl = defaultTaskTTL
		}
		for _, s := range t.States {
			a := s.Approval()
			if a == nil {
				continue
			}
			if a.Deadline > ttl {
				c.report(r, a.DeadlinePos, c.toolScope(t, s.Lint), "%s %q: approval gate %q waits up to %s, but its task lives %s (task.ttl)", t.Kind, t.Name, s.Name, a.Deadline, ttl)
			} else if to := t.Task.Timeout.D; to > 0 && a.Deadline > to {
				c.report(r, a.DeadlinePos, c.toolScope(t, s.Lint), "%s %q: approval gate %q waits up to %s, but its task times out after %s (task.timeout)", t.Kind, t.Name, s.Name, a.Deadline, to)
			}
		}
	}
}

// checkExpiredOutcome reports each transition into an expired terminal
// state that is not an approval's expire edge (and an initial state that
// is one).
func checkExpiredOutcome(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		for _, s := range t.States {
			for _, e := range s.Edges() {
				to := t.State(e.To)
				if to == nil || to.Kind != vocab.StateTerminal || to.Outcome != vocab.OutcomeExpired || e.On == vocab.Expire {
					continue
				}
				c.report(r, e.Pos, c.toolScope(t, s.Lint), "%s %q: state %q ends as expired, but %q reaches it by %s, not by an approval's expiry", t.Kind, t.Name, to.Name, s.Name, e.On.Label())
			}
			if s.Name == t.Initial && s.Kind == vocab.StateTerminal && s.Outcome == vocab.OutcomeExpired {
				c.report(r, s.Pos, c.toolScope(t, s.Lint), "%s %q: initial state %q ends as expired without any approval", t.Kind, t.Name, s.Name)
			}
		}
	}
}

// acceptsApproval reports whether an edge is an approval gate's accept
// edge: the approval record, not the caller's answer, passes it.
func acceptsApproval(from *spec.State, on vocab.Edge) bool {
	return acceptsGate(from, on) && from.Approval() != nil
}
