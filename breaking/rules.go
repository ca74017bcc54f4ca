package breaking

import (
	"slices"
	"strings"

	"github.com/mrtrgen/mrtrgen/internal/byid"
)

// Rule is one kind of breaking change: its id (stable: specs accept it by
// id, docs/evolution.md and the runtime's log reasons name it), what it
// breaks, how it is explained, and its check.
type Rule struct {
	ID       string
	Category Category
	Severity Severity
	Summary  string // what it finds, one line
	Hint     string // what to do, one line
	Why      string // the long form
	// Old and New are spec fragments before and after a change that
	// triggers it; Fixed is the change made compatibly, empty when the
	// remedy is a way of deploying (drain for one TTL, two phases) rather
	// than a different spec.
	Old, New, Fixed string
	check           func(*comparer, *Rule)
}

// Rules returns every rule: continuation, client, then behaviour rules,
// each group sorted by id, then the informational ones.
func Rules() []*Rule { return slices.Clone(registry) }

// Lookup returns the rule with the given id, or nil.
func Lookup(id string) *Rule { return byid.Find(registry, id, func(r *Rule) string { return r.ID }) }

var registry = slices.Concat(byID(continuationRules), byID(append(slices.Clone(clientRules), outputRule)), byID(slices.Concat(behaviourRules, approvalBehaviourRules)), byID(slices.Concat(infoRules, approvalInfoRules, []*Rule{goTypeRule})))

func byID(rs []*Rule) []*Rule {
	return slices.SortedFunc(slices.Values(rs), func(a, b *Rule) int { return strings.Compare(a.ID, b.ID) })
}

var continuationRules = []*Rule{
	{
		ID: "carried-type-changed", Category: Continuation, Severity: Error,
		Summary: "a carried value (a continuation field, or a form field of an answer a waiting workflow holds) changed its wire type",
		Hint:    "add a field under a new name and read the old one while old tokens live, or accept the break and drain for one TTL",
		Why: `A token writes every carried value with its wire kind (bool, int, float, string, enum,
list, group: spec.Field.WireKind). A value written as an int is not a float, and an enum
is not a string, so after the change the new build refuses a waiting workflow that
carries the value (log reason field_type_changed), and during a rolling deploy the old
build refuses the new build's tokens the same way.

An answer is carried once given when the workflow can still wait for a round after its
ask (a later ask or gate). The answers of the last ask before the end are never in a
token, so their types may change freely: a workflow waiting in that ask has its answer
validated against the question as the new build asks it, and is asked again, saying what
to correct, when the answer does not fit.`,
		Old:   `continuation: {fields: {amount: {type: integer, minimum: 1}}}`,
		New:   `continuation: {fields: {amount: {type: number, minimum: 0.01}}}`,
		Fixed: `continuation: {fields: {amount: {type: integer, minimum: 1}, amountDecimal: {type: number, minimum: 0.01}}}`,
		check: checkCarriedTypeChanged,
	},
	{
		ID: "enum-value-removed", Category: Continuation, Severity: Error,
		Summary: "an enum value a carried value may hold was removed",
		Hint:    "keep the value until one TTL after the deploy (appending and reordering values is safe), or accept the break and drain",
		Why: `Enum values are carried by name. A waiting workflow whose token holds the removed value
is refused by the new build (log reason enum_value_removed); tokens holding another value
still open. Appending, inserting and reordering values is compatible in both
directions, also for the question a workflow waits in: an answer valid for the question
as the build that takes it asks it counts, whichever build asked. A workflow waiting in
the ask itself is never refused: an answer holding a value that build does not have is
asked again, saying what to correct.`,
		Old:   `continuation: {fields: {plan: {type: enum, values: [free, team, legacy]}}}`,
		New:   `continuation: {fields: {plan: {type: enum, values: [free, team]}}}`,
		Fixed: `continuation: {fields: {plan: {type: enum, values: [free, team, legacy], description: legacy is no longer set; kept for waiting workflows.}}}`,
		check: checkEnumValueRemoved,
	},
	{
		ID: "constraint-narrowed", Category: Continuation, Severity: Error,
		Summary: "a constraint on a carried value was narrowed, or a required form field was added to a carried answer",
		Hint:    "keep the carried bound and enforce the new one where the value is produced, or accept the break and drain for one TTL",
		Why: `A narrower bound (maxLength, maxItems or maximum smaller; minLength, minItems or minimum
larger; a pattern or format added or changed) refuses carried values that were valid
when the old build wrote them: the new build refuses such a waiting workflow (log reason
constraint_narrowed); workflows whose values pass still open. A required form field
added to an answer that waiting workflows already carry is missing from all of them. A
workflow waiting in the ask itself is not refused: its answer is validated against the
question as the new build asks it, and asked again if it does not fit. Custom validators are not rerun on carried values, so adding one is not reported here.`,
		Old:   `comment: {type: string, maxLength: 500}`,
		New:   `comment: {type: string, maxLength: 200}`,
		Fixed: `comment: {type: string, maxLength: 500, description: The handler keeps the first 200 characters.}`,
		check: checkConstraintNarrowed,
	},
	{
		ID: "gate-changed", Category: Continuation, Severity: Error,
		Summary: "a gate a waiting workflow may have passed changed what it confirms",
		Hint:    "give the changed gate a new name and keep the old one for waiting workflows, or accept the break and drain for one TTL",
		Why: `A passed confirmation travels in the token as a digest of the question the user
accepted. When the question changes (its text, the values it shows, its key or field, a
yes/no gate made typed or back, the text to type), the new build cannot take that consent
for what it would now ask, and refuses the waiting workflow (log reason gate_changed)
rather than act on it. Only gates after which
a workflow can still wait matter: a workflow waiting in the gate itself is asked again,
and a gate followed only by checks, effects and the end is never carried.`,
		Old: `confirmRefund:
  confirm: {message: "Refund {amountCents} cents for order {orderId}?"}
  next: askNote`,
		New: `confirmRefund:
  confirm: {message: "Refund {amountCents} cents ({currency}) for order {orderId}?"}
  next: askNote`,
		Fixed: `# New workflows are routed to confirmRefundInCurrency.
confirmRefund:
  description: Kept for workflows that confirmed before the deploy.
  confirm: {message: "Refund {amountCents} cents for order {orderId}?"}
  next: askNote
confirmRefundInCurrency:
  confirm: {message: "Refund {amountCents} cents ({currency}) for order {orderId}?"}
  next: askNote`,
		check: checkGateChanged,
	},
	{
		ID: "state-kind-changed", Category: Continuation, Severity: Error,
		Summary: "a state a workflow may wait in became another kind of state",
		Hint:    "give the new step a new name and keep the old state until one TTL after the deploy",
		Why: `The token records the state it waits in and the requests it sent. When that state
becomes another kind (a gate an ask, an ask a check), the answer the client brings
back belongs to nothing the new build asks: the waiting workflow is refused (log reason
state_changed).`,
		Old: `review: {confirm: {message: "Publish post {postId}?"}, next: publish}`,
		New: `review:
  ask:
    note:
      elicit:
        message: Add a note to post {postId}.
        fields: {text: {type: string, maxLength: 200}}
  next: publish`,
		Fixed: `review: {confirm: {message: "Publish post {postId}?"}, next: publish}
addNote:
  ask:
    note:
      elicit:
        message: Add a note to post {postId}.
        fields: {text: {type: string, maxLength: 200}}
  next: review`,
		check: checkStateKindChanged,
	},
	{
		ID: "state-removed", Category: Continuation, Severity: Error,
		Summary: "an ask, gate, sampling or roots state a workflow may wait in was removed or renamed",
		Hint:    "keep the state (unreachable for new workflows) until one TTL after the deploy, or accept the break and drain",
		Why: `A token names the state it waits in. After the deploy no state of that name exists, so
every workflow waiting there is refused with the opaque -32602 (log reason
state_removed) and the user starts over. Renaming is removing: the token holds the old
name. During a rolling deploy old instances go on minting tokens for the state until the
last one stops, so the state has to outlive the whole deploy by one continuation TTL.
Adding, removing or reordering other states changes nothing: states are identified by
name, not position.`,
		Old: `askReason:
  ask:
    reason:
      elicit:
        message: Choose the closing reason for ticket {ticketId}.
        fields: {closeReason: {type: enum, values: [resolved, duplicate], required: true}}
  next: close`,
		New: `# askReason is gone; the check goes straight to close.
lookup: {check: ticketIsOpen, next: close}`,
		Fixed: `lookup: {check: ticketIsOpen, next: close}
askReason:
  description: No longer reached; kept until one TTL after the deploy for waiting workflows.
  ask:
    reason:
      elicit:
        message: Choose the closing reason for ticket {ticketId}.
        fields: {closeReason: {type: enum, values: [resolved, duplicate], required: true}}
  next: close`,
		check: checkStateRemoved,
	},
	{
		ID: "storage-changed", Category: Continuation, Severity: Error,
		Summary: "a workflow switched between sealed and reference storage",
		Hint:    "drain for one TTL, or accept the break; a field made sensitive switches storage unless continuation.storage is set",
		Why: `A sealed token carries the continuation itself; a reference token carries the key of a
record in the store. A build that expects the other form has nothing to open, so every
waiting workflow is refused (log reason storage_changed). Without continuation.storage,
storage follows sensitivity: the first sensitive continuation or form field switches a
workflow to reference storage.`,
		Old:   `continuation: {fields: {email: {type: string, maxLength: 254}}}`,
		New:   `continuation: {fields: {email: {type: string, maxLength: 254, sensitive: true}}}`,
		check: checkStorageChanged,
	},
	{
		ID: "argument-changed", Category: Continuation, Severity: Error,
		Summary: "an argument of a workflow that can wait was removed, retyped, narrowed or made required",
		Hint:    "add a new optional argument instead, or accept the break and drain for one TTL",
		Why: `A token is bound to the arguments of the call that started it, by a digest of their
tagged encoding; the client sends the same arguments with every round. After the change
the arguments no longer bind (a removed argument, a new wire type, a newly required
one) or no longer validate (a narrower bound): the waiting workflow is refused (log
reason binding). Adding an optional argument is compatible: an absent value writes
nothing into the digest.

The same change usually breaks clients too, reported by argument-removed,
argument-retyped, argument-narrowed or argument-added-required: the remedies differ (a
new tool version for clients, a drain for waiting workflows), so each is accepted on
its own. A change only of the wire type, such as integer to number, breaks no client
and is reported here alone.`,
		Old:   `arguments: {quantity: {type: integer, minimum: 1, required: true}}`,
		New:   `arguments: {quantity: {type: number, minimum: 1, required: true}}`,
		Fixed: `arguments: {quantity: {type: integer, minimum: 1}, quantityDecimal: {type: number, minimum: 0.01}}`,
		check: checkArgumentChanged,
	},
}

var clientRules = []*Rule{
	{
		ID: "argument-added-required", Category: Client, Severity: Error,
		Summary: "a required argument was added",
		Hint:    "add it as optional (with a default), or publish the change as a new tool",
		Why: `Clients built against the old input schema do not send the new argument, and the
call is refused as invalid arguments. Agents that read the schema afresh adapt; scripts,
tests and configured workflows do not.`,
		Old:   `arguments: {ticketId: {type: string, maxLength: 12, required: true}}`,
		New:   `arguments: {ticketId: {type: string, maxLength: 12, required: true}, team: {type: string, maxLength: 40, required: true}}`,
		Fixed: `arguments: {ticketId: {type: string, maxLength: 12, required: true}, team: {type: string, maxLength: 40, default: support}}`,
		check: checkArgumentAddedRequired,
	},
	{
		ID: "argument-narrowed", Category: Client, Severity: Error,
		Summary: "an argument accepts less: a bound tightened, an enum value or a pattern changed, a validator added, or now required",
		Hint:    "keep the old bound and handle the new limit in the handler, or publish the change as a new tool",
		Why: `A client that sent a valid value yesterday is refused today (invalid arguments):
a smaller maxLength, maxItems or maximum, a larger minLength, minItems or minimum, a
pattern or format added or changed, an enum value removed, a string made an enum, a
custom validator added, an optional argument made required.`,
		Old:   `arguments: {note: {type: string, maxLength: 500}}`,
		New:   `arguments: {note: {type: string, maxLength: 200}}`,
		Fixed: `arguments: {note: {type: string, maxLength: 500, description: Only the first 200 characters are kept.}}`,
		check: checkArgumentNarrowed,
	},
	{
		ID: "argument-removed", Category: Client, Severity: Error,
		Summary: "an argument was removed or renamed, or a tool is no longer nonInteractive",
		Hint:    "keep the argument (documented as ignored) until clients stopped sending it",
		Why: `Input schemas refuse unknown arguments, so a client that still sends the old one is
refused (unknown argument). Renaming is removing. A tool that stops being
nonInteractive loses its "inputs" argument the same way.`,
		Old:   `arguments: {ticketId: {type: string, maxLength: 12, required: true}, notify: {type: boolean}}`,
		New:   `arguments: {ticketId: {type: string, maxLength: 12, required: true}}`,
		Fixed: `arguments: {ticketId: {type: string, maxLength: 12, required: true}, notify: {type: boolean, description: Ignored; kept for older clients.}}`,
		check: checkArgumentRemoved,
	},
	{
		ID: "argument-retyped", Category: Client, Severity: Error,
		Summary: "an argument changed its JSON type",
		Hint:    "add an argument under a new name with the new type, and keep the old one",
		Why: `Clients send values of the type the old schema gave, and the new one refuses them
(invalid arguments). Widening an integer to a number is no break for clients (every
integer is a number); it is one for waiting workflows (argument-changed).`,
		Old:   `arguments: {priority: {type: integer, minimum: 1, maximum: 5}}`,
		New:   `arguments: {priority: {type: enum, values: [low, normal, high]}}`,
		Fixed: `arguments: {priority: {type: integer, minimum: 1, maximum: 5}, urgency: {type: enum, values: [low, normal, high]}}`,
		check: checkArgumentRetyped,
	},
	{
		ID: "capability-required", Category: Client, Severity: Error,
		Summary: "a tool now requires a client capability it did not",
		Hint:    "make the new request optional (clients without the capability skip it) instead of requiring the capability",
		Why: `A tool's requires list is checked on every round: a client without the capability is
refused where it used to be served. An optional request is left out for clients that
lack its capability, so adding one needs nothing new of them.`,
		Old: `requires: [elicitation]`,
		New: `requires: [elicitation, sampling]`,
		Fixed: `requires: [elicitation]
states:
  summarize:
    ask:
      summary:
        optional: true
        sample: {prompt: "Summarize ticket {ticketId}.", maxTokens: 60, maxLength: 300}
    next: close`,
		check: checkCapabilityRequired,
	},
	{
		ID: "not-found-changed", Category: Client, Severity: Warning,
		Summary: "a resource's end marked notFound was added, removed or unmarked: readers get another error code there",
		Hint:    "tell the resource's readers which code a URI that names nothing now gets, then accept it with that reason",
		Why: `A read that ends at a terminal state marked notFound is answered with the protocol's
resource-not-found error (-32602 with data.uri on 2026-07-28, -32002 before); any other
end that is not success is -32000. Marking an end notFound (or a new end, where a check
used to refuse with mrtr.Reject) changes the code a reader gets for a URI that names
nothing; unmarking or removing one changes it back. Readers that told the two apart,
to drop a stale link or to retry, act differently.`,
		Old: `lookUp: {check: lookUpService, next: show}  # an unknown service: mrtr.Reject, -32000`,
		New: `lookUp: {check: lookUpService, outcomes: {found: show, unknown: noSuchService}}
noSuchService: {terminal: failed, notFound: true, message: 'There is no service {service}.'}`,
		check: checkNotFoundChanged,
	},
	{
		ID: "prompt-removed", Category: Client, Severity: Error,
		Summary: "a prompt was removed or renamed",
		Hint:    "keep the old prompt (described as deprecated) until clients moved to the new name",
		Why: `Clients that offer the prompt by name (slash commands, saved shortcuts) get an
unknown-prompt error from prompts/get.`,
		Old: `prompts:
  triage: {description: Triage an issue., initial: done, states: {done: {terminal: success, messages: [{role: user, text: Triage it.}]}}}`,
		New: `prompts:
  triage_issue: {description: Triage an issue., initial: done, states: {done: {terminal: success, messages: [{role: user, text: Triage it.}]}}}`,
		Fixed: `prompts:
  triage: {description: "Deprecated: use triage_issue.", initial: done, states: {done: {terminal: success, messages: [{role: user, text: Triage it.}]}}}
  triage_issue: {description: Triage an issue., initial: done, states: {done: {terminal: success, messages: [{role: user, text: Triage it.}]}}}`,
		check: checkPromptRemoved,
	},
	{
		ID: "tool-removed", Category: Client, Severity: Error,
		Summary: "a tool was removed or renamed, or its spec deleted",
		Hint:    "keep the old tool (described as deprecated) until clients moved, then remove it with a reason",
		Why: `Clients that call the tool by name (agents configured with it, scripts, other
servers) get an unknown-tool error; workflows of it waiting for their next round are
refused too. Renaming is removing.`,
		Old: `tools:
  close_ticket: {description: Close a ticket., initial: close, states: {close: {effect: closeTicket, next: done}, done: {terminal: success, message: Closed.}}}`,
		New: `tools:
  close_support_ticket: {description: Close a ticket., initial: close, states: {close: {effect: closeTicket, next: done}, done: {terminal: success, message: Closed.}}}`,
		Fixed: `tools:
  close_ticket: {description: "Deprecated: use close_support_ticket.", initial: close, states: {close: {effect: closeTicket, next: done}, done: {terminal: success, message: Closed.}}}
  close_support_ticket: {description: Close a ticket., initial: close, states: {close: {effect: closeTicket, next: done}, done: {terminal: success, message: Closed.}}}`,
		check: checkToolRemoved,
	},
}

var behaviourRules = []*Rule{
	{
		ID: "effect-made-irreversible", Category: Behaviour, Severity: Warning,
		Summary: "an effect that could be undone is now marked irreversible",
		Hint:    "have the change reviewed as a new approval (a gate before it, a recheck after the gate), then accept it with the reviewer's reason",
		Why: `Whoever approved the workflow approved an effect that could be undone. Marking it
irreversible says it no longer can: the confirmation, recheck and TTL that lint asks of
irreversible effects are now due, and the approval should be given again.`,
		Old:   `charge: {effect: chargeCard, next: done}`,
		New:   `charge: {effect: chargeCard, irreversible: true, next: done}`,
		check: checkEffectMadeIrreversible,
	},
	{
		ID: "gate-after-effect", Category: Behaviour, Severity: Error,
		Summary: "an effect that ran only after a gate was accepted can now run without it, or before it",
		Hint:    "route every path to the effect through the gate's next edge again",
		Why: `In the old version every path to the effect went through the gate and its accept
edge: the effect ran only with the user's consent. Now a path reaches the effect
without that consent (a new edge around the gate, the gate moved after the effect, the
decline edge leading to it), which changes what was approved.`,
		Old: `confirmCharge: {confirm: {message: "Charge {amountCents} cents?"}, next: charge}
charge: {effect: chargeCard, next: done}`,
		New: `charge: {effect: chargeCard, next: confirmCharge}
confirmCharge: {confirm: {message: "Charge {amountCents} cents?"}, next: done}`,
		Fixed: `confirmCharge: {confirm: {message: "Charge {amountCents} cents?"}, next: charge}
charge: {effect: chargeCard, next: done}`,
		check: checkGateAfterEffect,
	},
	{
		ID: "gate-removed", Category: Behaviour, Severity: Error,
		Summary: "a confirmation gate was removed or renamed",
		Hint:    "keep the gate, or have the removal approved and accept it with the reason",
		Why: `The gate was where the user consented; the effects after it now run without that
consent. A renamed gate is reported too (by name it is removed); accept it with a
reason saying so.`,
		Old: `confirmDelete: {confirm: {message: "Delete project {projectId}?"}, next: delete}
delete: {effect: deleteProject, irreversible: true, next: done}`,
		New: `delete: {effect: deleteProject, irreversible: true, next: done}`,
		Fixed: `confirmDelete: {confirm: {message: "Delete project {projectId}?"}, next: delete}
delete: {effect: deleteProject, irreversible: true, next: done}`,
		check: checkGateRemoved,
	},
	{
		ID: "operation-id-changed", Category: Behaviour, Severity: Error,
		Summary: "an effect's operation id (idempotency key) is formed differently",
		Hint:    "keep the key; if it must change, deploy when no retry can be pending (after the effect's retain window) and accept with that reason",
		Why: `An effect runs once per operation id: a retry finds the first attempt's record and
replays its result. A retry that crosses the deploy computes the new id, finds no record
and runs the effect a second time: a second charge, a second email.`,
		Old:   `charge: {effect: chargeCard, idempotency: {key: "charge-{invoiceId}"}, next: done}`,
		New:   `charge: {effect: chargeCard, idempotency: {key: "charge-{invoiceId}-{currency}"}, next: done}`,
		Fixed: `charge: {effect: chargeCard, idempotency: {key: "charge-{invoiceId}"}, next: done}`,
		check: checkOperationIDChanged,
	},
}

var infoRules = []*Rule{
	{
		ID: "continuation-field-made-transient", Category: Continuation, Severity: Warning,
		Summary: "a carried continuation field became a transient value: the token shrinks, and the old build sees the value absent",
		Hint:    "deploy in one step, or accept it: the old build renders the value empty for the workflows the new build issued until the rollout ends",
		Why: `Making a carried field transient (continuation.transient, computed by a handler
method on each render) takes it out of the continuation and its token, which is the
point: the worst-case token shrinks by its size. Tokens still open both ways: the new
build skips the old tokens' entry and computes the value itself. But during a rolling
deploy the old build reads the new build's tokens without the value and sees it absent:
its templates render it as nothing and its handlers see the zero value.`,
		Old:   `continuation: {fields: {ciLog: {type: string, maxLength: 1500}}}`,
		New:   `continuation: {transient: {ciLog: {type: string, maxLength: 1500, from: renderCiLog, reads: []}}}`,
		check: checkContinuationFieldMadeTransient,
	},
	{
		ID: "continuation-field-removed", Category: Continuation, Severity: Info,
		Summary: "a continuation field, or an answer waiting workflows carry, was removed (compatible)",
		Hint:    "nothing to do; make sure the old build's handlers cope with the value absent during a rolling deploy",
		Why: `Compatible: the new build skips entries of old tokens it does not know. During a
rolling deploy the old build reads the new build's tokens without the value and sees it
absent (its zero value), so its handlers must not rely on it being set.`,
		Old:   `continuation: {fields: {subject: {type: string, maxLength: 120}, legacyId: {type: string, maxLength: 20}}}`,
		New:   `continuation: {fields: {subject: {type: string, maxLength: 120}}}`,
		check: checkContinuationFieldRemoved,
	},
	{
		ID: "unused-accept", Category: "", Severity: Info,
		Summary: "an accept of a breaking rule accepts nothing against the revision compared with",
		Hint:    "remove the accept once the change it was for has shipped",
		Why: `An accept (lint: ignore: RULE: reason) is meant for one intentional change. Left in
place after that change shipped, it would silently accept the next break of its rule
at the same place.`,
	},
}
