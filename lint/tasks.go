package lint

import (
	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Long-running tools (spec: task, effect slow), on the MCP Tasks
// extension.

var taskLoaderRules = []*Rule{
	{ID: "task", Severity: spec.Error, Summary: "a task block does not fit its tool: no state to start at, or a start state that is not an effect or a check, or a prompt"},
}

var taskRules = []*Rule{
	{
		ID: "slow-effect-without-task", Severity: spec.Warning,
		Summary: "an effect is declared slow but its tool is not long-running",
		Hint:    "declare the tool long-running with task: {mode: optional} (or required)",
		Why: `A slow effect (minutes or hours) cannot run inside one tools/call: clients and proxies
time out, and the instance that runs it may stop. Declared as a task, the tool answers
the round that reaches the effect with a CreateTaskResult and runs the effect detached;
the client follows it with tasks/get.`,
		Bad:   "ship:\n  effect: deploy\n  slow: true\n  next: done",
		Good:  "task: {mode: optional, timeout: 2h}\nstates:\n  ship:\n    effect: deploy\n    slow: true\n    next: done",
		check: checkSlowEffect,
	},
	{
		ID: "task-ask-outlives-ttl", Severity: spec.Warning,
		Summary: "a long-running tool asks after its task started, and the task may outlast the continuation TTL",
		Hint:    "set task.timeout no longer than continuation.ttl, or raise continuation.ttl to the time an answer may take",
		Why: `Asks after the task's start state go through the task (inputRequests on tasks/get,
answers on tasks/update); between them the workflow waits in a continuation like any
other, which expires after continuation.ttl. A task without a timeout, or with one longer
than the TTL, can reach such an ask and then fail with an expired continuation while the
user is still deciding.`,
		Bad:   "task: {mode: required}\ncontinuation: {ttl: 10m}",
		Good:  "task: {mode: required, timeout: 10m}\ncontinuation: {ttl: 10m}",
		check: checkTaskAskTTL,
	},
}

func checkSlowEffect(c *checker, r *Rule) {
	for _, t := range c.file.Tools {
		if t.Task != nil {
			continue
		}
		for _, s := range t.States {
			if s.Kind == vocab.StateEffect && s.Slow {
				c.report(r, s.SlowPos, c.toolScope(t, s.Lint), "tool %q: effect state %q is slow but the tool has no task block", t.Name, s.Name)
			}
		}
	}
}

func checkTaskAskTTL(c *checker, r *Rule) {
	for _, t := range c.file.Tools {
		td := t.Task
		if td == nil || td.Start == "" {
			continue
		}
		if td.Timeout.D > 0 && td.Timeout.D <= t.Continuation.TTL {
			continue
		}
		g := c.graph(t)
		start := -1
		for i, s := range t.States {
			if s.Name == td.Start {
				start = i
			}
		}
		if start < 0 {
			continue
		}
		after := g.reachFrom(start)
		for i, s := range t.States {
			if after.Has(i) && s.Kind.Interactive() {
				c.report(r, s.Pos, c.toolScope(t, s.Lint), "tool %q: state %q asks after the task started at %q, and the task may run longer than continuation.ttl (%s)", t.Name, s.Name, td.Start, t.Continuation.TTL)
			}
		}
	}
}

// inTask reports whether state i runs inside the tool's task: at or after
// its start state. There, an ask after an effect is the designed "input
// required" of a running task (answered through tasks/update), not an
// input boundary the effect crossed: effect-before-input does not apply.
// The task still needs the declined and cancelled paths of that ask to
// leave the operation in a state the spec means (a rollback effect, or a
// terminal state saying what was done).
func inTask(t *spec.Tool, g *graph, i int) bool {
	if t.Task == nil || t.Task.Start == "" {
		return false
	}
	for j, s := range t.States {
		if s.Name == t.Task.Start {
			return g.reachFrom(j).Has(i)
		}
	}
	return false
}
