package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mrtrgen/mrtrgen/internal/byid"
	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Rule is one lint check. Rules without a check function describe problems
// the loader reports (a spec that cannot be loaded); they exist here so that
// `mrtrgen explain` covers every id a user can see.
type Rule struct {
	ID       string
	Severity spec.Severity
	Summary  string // what it finds, one line
	Hint     string // what to do, one line
	Why      string // the long form: why it matters
	Bad      string // a spec fragment that triggers it
	Good     string // the fragment fixed
	check    func(*checker, *Rule)
	loader   bool
	// compile marks rules whose findings would make the generated code fail
	// to compile: the generator refuses such specs, and no opt-out applies.
	compile bool
}

// Mandatory reports whether the rule cannot be ignored: a loader rule, or
// one whose findings the generated code could not compile with.
func (r *Rule) Mandatory() bool { return r.loader || r.compile }

// Loader reports whether the rule is checked by the loader (and cannot be
// ignored) rather than by lint.
func (r *Rule) Loader() bool { return r.loader }

// Rules returns every rule, loader rules first, each group sorted by id.
func Rules() []*Rule { return slices.Clone(registry) }

// Lookup returns the rule with the given id, or nil.
func Lookup(id string) *Rule { return byid.Find(registry, id, func(r *Rule) string { return r.ID }) }

var registry []*Rule

func init() {
	// The loader's rules, then every rule the linter runs, by id: the core
	// rules and those of each construct's own file. Registered here, in
	// one place, so no file's init depends on running after another's.
	loaders := slices.Concat(loaderRules, taskLoaderRules, approvalLoaderRules, goTypeLoaderRules)
	for _, r := range loaders {
		r.loader = true
	}
	lint := slices.Concat(lintRules, summaryRules, urlRules, outputRules, progressRules, contentRules, taskRules, approvalRules, goTypeRules)
	slices.SortFunc(lint, func(a, b *Rule) int { return strings.Compare(a.ID, b.ID) })
	registry = slices.Concat(loaders, lint)
}

var lintRules = []*Rule{
	{
		ID: "answer-not-given", Severity: spec.Error,
		Summary: "a template names an answer that is not given on every path to it",
		Hint:    "name the answer only after its ask on every path (point onDecline/onCancel elsewhere), or drop the placeholder",
		Why: `A placeholder renders what the workflow holds when the text is made. An answer exists
only once its ask was left by its next edge: on a path that skips the ask, declines or
cancels it, or comes back into it (which forgets the earlier answer, so it is asked
again), the placeholder renders as nothing:
"Deploy to PRODUCTION under CHG-1:  (canary %)". An ask's own messages cannot name its own answers either: they are shown
before anything is answered. This covers every template: ask and confirmation
messages, sampling prompts, result and prompt messages, idempotency keys; and what a
validator with context (reads:) reads of an earlier answer, which must be given on every
path to the ask that uses it (the round would fail), and cannot be one of that ask's own.

Arguments are always given. Continuation fields are set by checks and effects: where
they declare what they set (sets:), value-not-set proves the same for them. An answer
that is given but may be empty (an optional request, a form field that is not
required) is optional-value-in-template's.`,
		Bad: `askRollout:
  ask:
    rollout:
      elicit:
        message: Choose the canary share for {service}.
        fields:
          canary: {type: integer, minimum: 1, maximum: 100, required: true}
  next: confirmDeploy
  onDecline: confirmDeploy
confirmDeploy:
  confirm: {message: "Deploy {service} to PRODUCTION ({rollout.canary} % canary)?"}
  next: deploy`,
		Good: `askRollout:
  ask:
    rollout:
      elicit:
        message: Choose the canary share for {service}.
        fields:
          canary: {type: integer, minimum: 1, maximum: 100, required: true}
  next: confirmDeploy
  onDecline: notDeployed
confirmDeploy:
  confirm: {message: "Deploy {service} to PRODUCTION ({rollout.canary} % canary)?"}
  next: deploy
notDeployed: {terminal: cancelled, message: "Did not deploy {service}."}`,
		check: checkAnswerNotGiven,
	},
	{
		ID: "ask-before-discovery", Severity: spec.Warning,
		Summary: "an ask comes before the tool has discovered anything, or asks only what the caller knew up front",
		Hint:    "if the caller knows it up front, put it in the tool's arguments (MRTR is not a replacement for tool schemas)",
		Why: `MRTR is for information that becomes necessary during execution: a closing reason
once the ticket is known to be open, a confirmation once a subscription is found. A
question asked before any check has run depends on nothing the server discovered, so
the caller could have supplied it as an argument, and a round trip is wasted.

A check placed before the ask does not change that when the question uses nothing it
found. So the rule also reports a form question reached only through checks that
passed (their next edge) and branches on arguments, whose message, fields and options
use nothing discovered during execution: no continuation field (a check or effect sets
it), no earlier answer, no valuesFrom, no validator with context reading one. That
question is still one the caller could answer in the arguments; if its answer does
depend on what the check found, show that in the question. Not reported: a question
after an effect, a gate, an earlier ask, a check's other outcomes or a branch on a
discovered value, and a form with a sensitive field (arguments cannot be sensitive).`,
		Bad: `initial: customerExists
states:
  customerExists: {check: customerExists, next: askCurrency}
  askCurrency:
    ask:
      currency:
        elicit:
          message: Which currency should the invoice for {customerId} use?
          fields:
            code: {type: enum, values: [EUR, USD], required: true}
    next: create`,
		Good: `arguments:
  currency: {type: enum, values: [EUR, USD], required: true}
initial: customerExists
states:
  customerExists: {check: customerExists, next: create}`,
		check: checkAskBeforeDiscovery,
	},
	{
		ID: "ask-duplicates-argument", Severity: spec.Error,
		Summary: "a form field asks mid-flow for something that is already an argument",
		Hint:    "read the argument instead of asking for it again, or rename the field",
		Why: `When a value is a declared argument the client has already sent it; asking for it
again in a round means two sources for one value, and the later one silently wins.`,
		Bad: `arguments:
  ticketId: {type: string, maxLength: 12, required: true}
states:
  askReason:
    ask:
      reason:
        elicit:
          message: Provide the reason for closing ticket {ticketId}.
          fields:
            ticketId: {type: string, maxLength: 12}`,
		Good: `arguments:
  ticketId: {type: string, maxLength: 12, required: true}
states:
  askReason:
    ask:
      reason:
        elicit:
          message: Provide the reason for closing ticket {ticketId}.
          fields:
            closeReason: {type: enum, values: [resolved, duplicate], required: true}`,
		check: checkAskDuplicatesArgument,
	},
	{
		ID: "ask-again-not-earlier", Severity: spec.Error,
		Summary: "a check's askAgain names an ask the check does not follow",
		Hint:    "name the ask whose answer the check refuses (one the check follows by its next edge)",
		Why: `mrtr.AskAgain sends the workflow back to the question the check refused, with the check's
message shown as the question's explanation. An ask that does not lead to the check was
not answered before it: going there is not asking again, and the message explains a
question the user never saw.`,
		Bad: `askTicket: {ask: {ticket: {...}}, next: confirm}
confirm: {confirm: {...}, next: verify}
askOther: {ask: {other: {...}}, next: done}
verify:
  check: ticketApproved
  next: deploy
  askAgain: {state: askOther, maxAttempts: 3, onExhausted: noTicket}`,
		Good: `verify:
  check: ticketApproved
  next: deploy
  askAgain: {state: askTicket, maxAttempts: 3, onExhausted: noTicket}`,
		check: checkAskAgainTarget,
	},
	{
		ID: "ask-again-unexplained", Severity: spec.Warning,
		Summary: "a check's askAgain goes back to an ask that only asks for roots, which cannot show why",
		Hint:    "ask for a form in that state too (its message shows what to fix), or end the workflow with a message instead of asking again",
		Why: `mrtr.AskAgain adds the check's message to the question it sends the user back to: a form's
message or a sampling prompt. A roots request (roots/list) has no text: the client
lists the same roots again and the user never learns what was wrong with them, so the
loop runs out its attempts on the same answer.`,
		Bad: `pickRoot:
  ask: {workspace: {roots: {minItems: 1}}}
  next: verify
verify:
  check: workspaceIsRepo
  askAgain: {state: pickRoot, maxAttempts: 3, onExhausted: noRepo}`,
		Good: `pickRoot:
  ask:
    workspace: {roots: {minItems: 1}}
    which:
      elicit:
        message: Which of your roots is the repository?
        fields: {path: {type: string, maxLength: 200, required: true}}
  next: verify
verify:
  check: workspaceIsRepo
  askAgain: {state: pickRoot, maxAttempts: 3, onExhausted: noRepo}`,
		check: checkAskAgainUnexplained,
	},
	{
		ID: "branch-not-exhaustive", Severity: spec.Error,
		Summary: "a value branch has no arm for some values (or for an absent value) and no default",
		Hint:    "add the missing cases or ranges, or a default:",
		Why: `A branch routes on a value with no handler method, so every value must have somewhere to
go: every value of an enum or boolean a case, every number of the field's range
(its minimum and maximum; whole numbers for an integer) a range of when, and an absent
value (an optional argument or form field without default, or the answer of an optional
request) the default. A value no arm takes fails the round at run time.`,
		Bad: `route:
  branch: amount        # number, minimum: 0
  when:
    - {above: 500, next: managerApproval}`,
		Good: `route:
  branch: amount
  when:
    - {above: 500, next: managerApproval}
  default: refund`,
		check: checkBranchExhaustive,
	},
	{
		ID: "branch-value-not-set", Severity: spec.Error,
		Summary: "a value branch routes on an answer or continuation field that some path to it has not given or set",
		Hint:    "branch only after the ask (by its next edge) or after the check that sets the field, on every path",
		Why: `A branch reads its value when it runs. An answer exists once its ask was left by its next
edge (not on a path that skips it, declines or cancels it, or comes back into it); a
continuation field is set by checks and effects. On a path without it the branch would
route on nothing: an unset enum fails the round, an unset number or boolean is zero and
takes whatever arm zero takes. In a workflow whose checks and effects declare what they
set (sets:), value-not-set proves a continuation field from the declarations; in one
that declares nothing, any check or effect before the branch counts as setting it.`,
		Bad: `askRefund:
  ask: {refund: {elicit: {message: ..., fields: {amount: {type: number, required: true}}}}}
  next: route
  onDecline: route
route: {branch: refund.amount, when: [{above: 500, next: approval}], default: pay}`,
		Good: `askRefund:
  ask: {refund: {elicit: {message: ..., fields: {amount: {type: number, required: true}}}}}
  next: route
  onDecline: notRefunded`,
		check: checkBranchValueNotSet,
	},
	{
		ID: "continuation-too-large", Severity: spec.Warning,
		Summary: "the sealed requestState can grow past the budget",
		Hint:    "bound the carried strings and arrays, carry ids instead of records, use storage: reference, or raise continuation.maxBytes",
		Why: `requestState travels with every round. Keep it small: carry ids, not records.
The estimate is the worst case under the generated encoding, counted by what the
constraints allow: every string at its maxLength in characters of the widest UTF-8
width its pattern admits (1 byte where only ASCII, 4 without a pattern or under email
and uri), no longer than its pattern can match (dep_[0-9a-f]{8}: 12 bytes) or a date
is; enum answers by their longest value, an answer offered from a list by the value
alone (titles are not carried in answers), a list of options with every value and
title; every array full; measured as base64url token length. The finding names the
values that cost the most, or the ones with no bound.`,
		Bad:   `continuation: {fields: {customer: {type: string}}}`,
		Good:  `continuation: {fields: {customerId: {type: string, maxLength: 32}}}`,
		check: checkContinuationSize,
	},
	{
		ID: "deprecated-feature", Severity: spec.Warning,
		Summary: "a tool uses sampling or roots, which MCP 2026-07-28 deprecates (SEP-2577)",
		Hint:    "instead of sampling, call an LLM provider's API from a check; instead of roots, take directories or files as arguments, resource URIs or server configuration",
		Why: `SEP-2577 deprecates sampling (sampling/createMessage), roots (roots/list) and logging as
of protocol revision 2026-07-28. They keep working during the deprecation window (every
revision released within a year of it supports them; the earliest removal is the first
revision released on or after 2027-07-28), but new tools should not build on them, and
clients may stop offering them. The migration paths of the specification's deprecated
features registry: for sampling, integrate directly with an LLM provider's API (in
mrtrgen, a check that calls it and stores the text in a continuation field); for roots,
pass directories or files as tool parameters, resource URIs or server configuration.

Each sample: and roots: request is reported, and so is requires: naming sampling or
roots (those capabilities serve nothing else). A spec that must exercise them, such as
a conformance fixture, silences this with a reason.`,
		Bad: `arguments:
  ticketId: {type: string, maxLength: 12, required: true}
states:
  askSummary:
    ask:
      summary:
        sample:
          prompt: Summarize ticket {ticketId} in one line.
          maxTokens: 60
          maxLength: 300
      folder:
        roots: {maxItems: 1}
    next: done`,
		Good: `arguments:
  ticketId: {type: string, maxLength: 12, required: true}
  folder: {type: string, format: uri, maxLength: 512, required: true}
continuation:
  fields:
    summary: {type: string, maxLength: 300}
states:
  summarize:
    description: The handler asks the team's LLM provider and stores the text in summary.
    check: summarizeTicket
    next: done`,
		check: checkDeprecatedFeatures,
	},
	{
		ID: "destructive-without-ttl", Severity: spec.Error,
		Summary: "a destructive tool, or one with an irreversible effect, relies on the default TTL",
		Hint:    "set continuation.ttl to how long a confirmation may stay valid (minutes, not hours)",
		Why: `A confirmation given long ago may no longer reflect what the user wants. Tools that
destroy or charge must say explicitly how long a continuation stays valid.`,
		Bad:   `destructive: true`,
		Good:  "destructive: true\ncontinuation: {ttl: 5m}",
		check: checkDestructiveTTL,
	},
	{
		ID: "effect-before-input", Severity: spec.Error,
		Summary: "a side effect runs while the workflow may still ask for input",
		Hint:    "move the effect after the last ask, or split the workflow",
		Why: `"Avoid putting irreversible operations before the input boundary." If an ask or gate can
follow an effect, the effect has run before all input was gathered: a declined or
abandoned later round leaves a half-done operation behind.`,
		Bad:   `create: {effect: createDraft, next: askTitle}`,
		Good:  `askTitle: {ask: {...}, next: create}`,
		check: checkEffectBeforeInput,
	},
	{
		ID: "enum-without-values", Severity: spec.Error,
		Summary: "an enum has no values",
		Hint:    "list the allowed values: values: [a, b, c]",
		Why:     `An enum without values accepts nothing; clients cannot render it as a choice.`,
		Bad:     `closeReason: {type: enum}`,
		Good:    `closeReason: {type: enum, values: [resolved, duplicate]}`,
		check:   checkEnumValues,
	},
	{
		ID: "first-round-effect-without-operation-id", Severity: spec.Warning,
		Summary: "an effect can run in the first call but has no operation id of its own",
		Hint:    "give the effect an idempotency key made of arguments (key: \"create-{orderId}\"), or ask (or confirm) before it",
		Why: `Retries of a later round replay that round (round records), but the first call has no
requestState yet: a client that retries it starts a new workflow, and an effect whose
operation id is the workflow's own ({workflowId}, the default) runs again. The runtime
takes no answers in a first call (answers count only for questions it sent), so every
interactive state ends the first round; an effect reachable from the start without one
(any effect, for a non-interactive tool, whose inputs argument answers everything up
front) can run in the first call and needs an operation id the retry repeats: one built
from the arguments.`,
		Bad:   "initial: create\nstates:\n  create: {effect: createOrder, next: done}",
		Good:  "create: {effect: createOrder, idempotency: {key: \"order-{orderRef}\"}, next: done}",
		check: checkFirstRoundEffects,
	},
	{
		ID: "format-inconsistent", Severity: spec.Warning,
		Summary: "a value is shown with a format in one template and without it, or with another, in another",
		Hint:    "write the value with the same format wherever the tool shows it ({amount|decimal:2} everywhere)",
		Why: `The same value written two ways reads as two values: a confirmation that asks "Refund
50.50 EUR?" and a result that says "Refunded 50.5 EUR" make the user wonder which amount
was refunded. A format ({amount|decimal:2}, {amount|money:currency}, {since|date}) decides
how a value is written; where a tool formats a value once, every message, prompt and result
that shows it should use that format. Idempotency keys, URLs and typed confirmation texts
take values as they are and are left out.`,
		Bad:   "confirm: {message: \"Refund {refund.amount|decimal:2} {currency}?\"}\n# ...\nmessage: Refunded {refund.amount} {currency}.",
		Good:  "message: Refunded {refund.amount|decimal:2} {currency}.",
		check: checkFormatInconsistent,
	},
	{
		ID: "check-outcomes-mismatch", Severity: spec.Error,
		Summary: "one check is used by several states with different outcomes",
		Hint:    "give every use of the check the same outcomes, or use two checks",
		Why: `A check is one handler method with one result type: its outcomes are the constants that
method returns. Two states that use the same check with different outcomes would need two
result types for one method.`,
		Bad:     "a: {check: x, outcomes: {ok: b, no: end}}\nb: {check: x, outcomes: {ok: end}}",
		Good:    "a: {check: x, outcomes: {ok: b, no: end}}\nb: {check: x, outcomes: {ok: end, no: end}}",
		check:   checkOutcomesMismatch,
		compile: true,
	},
	{
		ID: "continuation-key-collision", Severity: spec.Error,
		Summary: "two names of one group of the continuation have the same key",
		Hint:    "rename one of them",
		Why: `A continuation carries each value as a tagged entry whose key is a 32-bit hash of its
name (docs/evolution.md), so two builds of a spec read each other's tokens. Two names of
one group (the arguments, the continuation fields, one form's fields, the input requests,
the confirmation states) with the same key would be read as each other. It happens about
once in 80,000 pairs of names.`,
		Bad:     "continuation: {fields: {f6059: {type: integer}, f264602: {type: integer}}}",
		Good:    "continuation: {fields: {f6059: {type: integer}, total: {type: integer}}}",
		check:   checkKeyCollisions,
		compile: true,
	},
	{
		ID: "go-identifier-collision", Severity: spec.Error,
		Summary: "two spec names become the same Go identifier",
		Hint:    "rename one of them so their Go names differ",
		Why: `Generated names are derived from spec names (close_ticket and closeTicket both become
CloseTicket). Two such names in one scope would not compile; nor would one name used
for two kinds of handler method (a check and a content source, a validator and a
completion source), which take and return different things.`,
		Bad:     "states: {close_ticket: ..., closeTicket: ...}",
		Good:    "states: {closeTicket: ..., closed: ...}",
		check:   checkGoCollisions,
		compile: true,
	},
	{
		ID: "irreversible-without-confirmation", Severity: spec.Error,
		Summary: "an irreversible effect can run without passing a confirmation gate",
		Hint:    "add a confirm: state on every path to the effect, and point its onDecline/onCancel away from it",
		Why: `"A confirmation should happen before the irreversible operation." Deleting, charging,
publishing or sending must sit behind a confirmation gate on every path that reaches
it; otherwise a model can trigger it without a person agreeing. A path counts as
confirmed only when it leaves a gate by its accept edge (next): a gate whose onDecline
or onCancel leads on to the effect lets "no" or a dismissed dialog run it. An approval
gate (approval:) is a confirmation gate too; its onExpire, like onDecline, confirms
nothing. In a nonInteractive tool answers given up front in inputs pass plain gates, so
a gated effect is reported there too, unless an approval gate is on every path to it:
only its approval record passes it.`,
		Bad:   "validate: {check: validatePayment, next: charge}\ncharge: {effect: chargeCard, irreversible: true, next: done}",
		Good:  "validate: {check: validatePayment, next: confirm}\nconfirm: {confirm: {message: \"Charge {amount}?\"}, next: charge, onDecline: kept}",
		check: checkIrreversibleConfirmation,
	},
	{
		ID: "options-without-max-items", Severity: spec.Error,
		Summary: "a continuation list offered as options has no maxItems",
		Hint:    "add maxItems: the most options the form offers (a check that finds more narrows the search, or offers the first N)",
		Why: `A form field with valuesFrom offers every option of a continuation list that a check
filled at run time. Without a bound, a search that matches ten thousand customers
sends a form with ten thousand choices, carries them in every requestState of the
workflow, and makes the size budget (continuation-too-large) meaningless. The bound
is checked when the handler sets the list: a longer list fails the round instead of
being sealed.`,
		Bad: `continuation:
  fields:
    matches:
      type: array
      items: {type: option, maxLength: 28, titleMaxLength: 80}`,
		Good: `continuation:
  fields:
    matches:
      type: array
      maxItems: 10
      items: {type: option, maxLength: 28, titleMaxLength: 80}`,
		check: checkOptionsMaxItems,
	},
	{
		ID: "optional-value-in-template", Severity: spec.Warning,
		Summary: "a template names a value that may be absent: an optional argument or form field, or the answer of an optional request",
		Hint:    "put the text in a section shown only when the value is set ({?note} ({note}){/note}), make the value required or give it a default",
		Why: `Outside a section ({?note} … {/note}), a value that is absent renders as nothing, and the
text around it stays ("Closed ticket 42 ()."). Arguments and form fields that are not
required and have no default may be absent; so may the answer of an optional request,
which is left out when the client cannot answer it. In an idempotency key, an absent
value and an empty one give the same operation id. A check can also compose the text
into a continuation field, which the template then names.

Continuation fields are not checked (checks and effects set them, and lint cannot see
which). Answers that are not given at all on some path are answer-not-given's errors.`,
		Bad: `arguments:
  ticketId: {type: string, maxLength: 12, required: true}
  note: {type: string, maxLength: 200}
states:
  closed: {terminal: success, message: "Closed ticket {ticketId} ({note})."}`,
		Good: `arguments:
  ticketId: {type: string, maxLength: 12, required: true}
  note: {type: string, maxLength: 200, default: no note}
states:
  closed: {terminal: success, message: "Closed ticket {ticketId} ({note})."}`,
		check: checkOptionalInTemplate,
	},
	{
		ID: "overlapping-thresholds", Severity: spec.Error,
		Summary: "two ranges of a value branch take the same number",
		Hint:    "make the ranges disjoint: end one where the next begins (atMost 500, then above 500)",
		Why: `The ranges of a branch are read as a table, in any order: each number takes the one range
that contains it. Two ranges that share a number make the table ambiguous for the reader
("above 100" and "above 500" both take 600), so they must not overlap. Write one range
per band: {above: 100, atMost: 500} and {above: 500}.`,
		Bad: `when:
  - {above: 100, next: teamLead}
  - {above: 500, next: manager}`,
		Good: `when:
  - {above: 100, atMost: 500, next: teamLead}
  - {above: 500, next: manager}`,
		check: checkOverlappingThresholds,
	},
	{
		ID: "recheck-after-confirmation", Severity: spec.Warning,
		Summary: "an irreversible effect follows a confirmation gate with no business recheck in between",
		Hint:    "add a check: state between the gate and the effect",
		Why: `"Even after confirmation, revalidate critical conditions." The user may take minutes to
confirm; the account may have changed meanwhile. Recheck before the irreversible step.
Only what follows a gate's accept edge (next) follows the confirmation; a decline,
cancel or expire edge confirms nothing. An approval may take hours: recheck after it
all the more.`,
		Bad:   "confirm: {confirm: {...}, next: delete}",
		Good:  "confirm: {confirm: {...}, next: recheck}\nrecheck: {check: stillDeletable, next: delete}",
		check: checkRecheckAfterConfirmation,
	},
	{
		ID: "secret-not-sensitive", Severity: spec.Warning,
		Summary: "a continuation field is named like a secret but is not marked sensitive",
		Hint:    "add sensitive: true, or rename the field if it holds no secret",
		Why: `"Do not put sensitive data into request state." A continuation field holding a token,
password, API key, private key, one-time code or PIN must say so with sensitive: true:
then it stays server-side behind an opaque reference and is consumed when the workflow
completes. Without it, the value is handled like any other continuation value: by
default sealed into requestState, which travels through the client, where it can be
logged, copied and replayed.

Names are matched by words, not substrings (apiKey, api_key and APIKey match;
keyboard and spinner do not), and a name describing a secret rather than holding it
is not reported: tokenCount, maxTokens, passwordHint, secretName, tokenExpiresAt.
Where a name still misleads, silence the finding on the field with a reason.`,
		Bad: `continuation:
  fields:
    paymentToken: {type: string, maxLength: 64}`,
		Good: `continuation:
  fields:
    paymentToken: {type: string, maxLength: 64, sensitive: true}`,
		check: checkSecretNotSensitive,
	},
	{
		ID: "sensitive-in-sealed-state", Severity: spec.Error,
		Summary: "a sensitive continuation field would travel in the sealed token",
		Hint:    "remove storage: sealed (sensitive fields make storage reference), or drop sensitive",
		Why: `"Do not put sensitive data into request state." requestState travels through the client;
even encrypted it can be logged, copied and replayed. Sensitive values stay server-side
and the token carries only an opaque reference.`,
		Bad:   "continuation: {storage: sealed, fields: {email: {type: string, sensitive: true}}}",
		Good:  "continuation: {fields: {email: {type: string, sensitive: true}}}",
		check: checkSensitiveSealed,
	},
	{
		ID: "sensitive-in-template", Severity: spec.Error,
		Summary: "a template renders a sensitive value",
		Hint:    "name something that identifies the value instead (a last-4, an id), or drop sensitive",
		Why: `A sensitive value (a continuation field or a form field marked sensitive: true) is kept
server-side and deleted when its workflow ends. A message, prompt, result or idempotency key
that renders it sends it to the client and the model, and a result or operation id is kept
in the round and effect records for their retention: the value would outlive the workflow
there. Render what identifies it instead.`,
		Bad: `fields:
  otp: {type: string, maxLength: 8, sensitive: true}
# ...
message: Approved with code {approval.otp}.`,
		Good:  `message: Approved.`,
		check: checkSensitiveInTemplate,
	},
	{
		ID: "string-without-max-length", Severity: spec.Warning,
		Summary: "a string input has no maxLength",
		Hint:    "add maxLength: every round is a trust boundary and input is validated again",
		Why: `"Validate length, format, allowed values." Input from a client or a model is untrusted;
an unbounded string also makes the continuation's size unbounded.`,
		Bad:   `comment: {type: string}`,
		Good:  `comment: {type: string, maxLength: 500}`,
		check: checkStringMaxLength,
	},
	{
		ID: "unbounded-ask-cycle", Severity: spec.Warning,
		Summary: "a loop through a question has no bound: the user can be asked again and again",
		Hint:    "bound the loop with askAgain on the check that refuses the answer (maxAttempts, onExhausted), or maxAttempts and onExhausted on an ask whose validator reads the flow",
		Why: `A loop back to a state that asks (a check outcome "retry" that leads to the question again,
a decline that goes back) lets a workflow ask forever: a model calling the tool can keep
answering wrongly, and nothing ends it but the TTL. askAgain on a check is the bounded
loop: the check refuses the answer with mrtr.AskAgain and a message the user sees, the
continuation counts the refusals (sealed, so the count cannot be reset), and after
maxAttempts answers the workflow goes to onExhausted instead.

A validator with context (reads:) is such a loop inside one ask: it may refuse every
answer for a reason of the flow (no ticket ever covers this release), and the question is
asked again each time. An ask whose form uses one bounds it with maxAttempts and
onExhausted on the ask state, counted like a check's refusals.`,
		Bad: `askTicket: {ask: {ticket: {...}}, next: verify}
verify:
  check: ticketApproved
  outcomes: {approved: deploy, notApproved: askTicket}`,
		Good: `askTicket: {ask: {ticket: {...}}, next: verify}
verify:
  check: ticketApproved
  next: deploy
  askAgain: {state: askTicket, maxAttempts: 3, onExhausted: noTicket}`,
		check: checkUnboundedAskCycle,
	},
	{
		ID: "unreachable-arm", Severity: spec.Warning,
		Summary: "an arm of a value branch can never be taken",
		Hint:    "delete the arm, or fix its bounds",
		Why: `A range that holds no value of the field (above its maximum, or above 500 and below 100),
or a default when the cases or ranges already take every value (and the value cannot be
absent), is dead code that misleads a reviewer into thinking a path exists.`,
		Bad: `amount: {type: number, minimum: 0, maximum: 1000}
# ...
when:
  - {above: 5000, next: director}
  - {atLeast: 0, next: refund}`,
		Good: `when:
  - {above: 500, next: manager}
  - {atLeast: 0, atMost: 500, next: refund}`,
		check: checkUnreachableArm,
	},
	{
		ID: "unreachable-state", Severity: spec.Warning,
		Summary: "a state cannot be reached from the initial state",
		Hint:    "connect it or delete it",
		Why:     `Only states reachable from the initial state ever run; the rest is dead code that misleads reviewers.`,
		Bad:     "a: {check: x, next: done}\nb: {check: y, next: done}   # nothing leads to b",
		Good:    "a: {check: x, next: b}\nb: {check: y, next: done}",
		check:   checkReachability,
	},
	{
		ID: "unused-state", Severity: spec.Warning,
		Summary: "no transition leads to a state and it is not the initial state",
		Hint:    "delete it, or point a next/outcome at it",
		Why:     `A state nothing refers to is never used.`,
		Bad:     "states: {start: {...}, leftover: {terminal: success}}",
		Good:    "states: {start: {...}}",
		check:   nil, // reported by checkReachability
	},
	{
		ID: "no-terminal-path", Severity: spec.Error,
		Summary: "from a state no path leads to a terminal state",
		Hint:    "give the loop an exit to a terminal state",
		Why:     `A workflow that can never end keeps asking forever; every state needs a way out.`,
		Bad:     "a: {check: x, next: b}\nb: {check: y, next: a}",
		Good:    "a: {check: x, next: b}\nb: {check: y, outcomes: {again: a, done: end}}",
		check:   nil, // reported by checkReachability
	},
	{
		ID: "unused-input", Severity: spec.Warning,
		Summary: "an answer is never used",
		Hint:    "use it in a message or an idempotency key, follow the ask with a check or effect that reads it, or stop asking",
		Why: `Every question costs the user a round. An answer no template names and no handler
step can read after it was given (after the ask's next edge: a check reached only by
declining or cancelling has no answer to read) is a question that should not be asked.`,
		Bad: `askReason:
  ask:
    reason:
      elicit:
        message: Provide the reason for closing ticket {ticketId}.
        fields:
          closeReason: {type: enum, values: [resolved, duplicate], required: true}
  next: done
done: {terminal: success, message: OK}`,
		Good: `askReason:
  ask:
    reason:
      elicit:
        message: Provide the reason for closing ticket {ticketId}.
        fields:
          closeReason: {type: enum, values: [resolved, duplicate], required: true}
  next: done
done: {terminal: success, message: "Closed {ticketId} ({reason.closeReason})."}`,
		check: checkUnusedInput,
	},
	{
		ID: "value-not-set", Severity: spec.Error,
		Summary: "a template or an option source reads a continuation value that is not set on every path to it",
		Hint:    "declare the value in sets: of a check or effect on every path to the read (or on the outcomes that lead there), or stop reading it there",
		Why: `Continuation fields are set by handler methods, and a spec can say which: sets: on a
check or an effect lists the fields it sets before it returns (sets: [subject]), or,
for a check with outcomes, the outcomes it sets each on (sets: {matches: [several]}).
Once a workflow declares what it sets, or offers a continuation list as a form's
options (valuesFrom), lint proves every continuation value it reads is set on every
path from the initial state to the read: every placeholder of a message, prompt,
result or idempotency key, and every list a form offers. On a path where nothing
set it, the placeholder renders as nothing ("Deleting customer  (plan )") and a form
has no choice to offer. A validator with context (reads:) that reads a continuation
field is a read at the ask that uses it: a workflow with one must say who sets the
field. So is a continuation field a transient value reads (reads:), at every template
naming the value. The finding gives such a walk.

The generated code enforces the declarations: when a check or effect returns
without setting a string, enum or list it declares (a number's or boolean's zero is
a value), the round fails with a log naming the method, the state, the outcome and
the field, instead of rendering an empty value. Workflows without sets: and without
valuesFrom are not checked: lint cannot tell what their handlers set.`,
		Bad: `lookup:
  check: findCustomers
  sets: {matches: [several]}
  outcomes: {several: pick, one: confirm}
confirm:
  confirm: {message: "Delete {customerName}?"}
  next: delete`,
		Good: `lookup:
  check: findCustomers
  sets: {matches: [several], customerName: [one]}
  outcomes: {several: pick, one: confirm}
confirm:
  confirm: {message: "Delete {customerName}?"}
  next: delete`,
		check: checkValueNotSet,
	},
	{
		ID: "vague-ask-message", Severity: spec.Warning,
		Summary: "an ask or gate message does not say what it needs",
		Hint:    `say exactly what is needed and for what: "Provide the reason for closing ticket {ticketId}."`,
		Why: `"Avoid ambiguous input requests." A message like "Please provide additional information"
gives the user and the client's model nothing to act on. Name the field or the object.`,
		Bad:   `message: Please provide additional information.`,
		Good:  `message: Provide the reason for closing ticket {ticketId}.`,
		check: checkVagueMessages,
	},
	{
		ID: "unused-ignore", Severity: spec.Warning,
		Summary: "a lint opt-out silences nothing",
		Hint:    "remove the stale opt-out",
		Why:     `Opt-outs are reviewed exceptions; one that no longer applies hides the next real finding.`,
		check:   nil, // reported by checkSuppressions
	},
}

// loaderRules describe what the loader reports; they cannot be ignored.
var loaderRules = []*Rule{
	{ID: "input", Severity: spec.Error, Summary: "the file cannot be a spec: empty, binary, not UTF-8, too large or too deeply nested",
		Why: "The loader bounds its work on any input: files over 8 MiB, deeper than 64 levels or whose aliases expand past 2,000,000 nodes are refused."},
	{ID: "yaml-syntax", Severity: spec.Error, Summary: "the file is not well-formed YAML (or uses merge keys, several documents, or self-referencing aliases)"},
	{ID: "duplicate-key", Severity: spec.Error, Summary: "a mapping has the same key twice", Hint: "remove one of them"},
	{ID: "schema", Severity: spec.Error, Summary: "the spec does not match the JSON Schema: unknown key, wrong type, missing key",
		Why: "The schema is embedded in mrtrgen (`mrtrgen schema` prints it); editors use it through a `# yaml-language-server: $schema=` line."},
	{ID: "field", Severity: spec.Error, Summary: "a field's constraints do not fit its type or role, or contradict each other"},
	{ID: "state", Severity: spec.Error, Summary: "a state does not say exactly one thing to do, or lacks its transition"},
	{ID: "branch", Severity: spec.Error, Summary: "a value branch routes on a value it cannot route on, or its arms do not fit the value's type"},
	{ID: "ask", Severity: spec.Error, Summary: "an input request does not say exactly one thing it asks for, or a question (questions:) is asked in no state"},
	{ID: "question-form", Severity: spec.Error, Summary: "a state's own form of a question widens it, changes a field's type, or adds a field the answer type cannot hold",
		Why: "One question key has one answer type (docs/spec.md, Per-state forms): narrow may only take away (fewer enum values, tighter bounds, required where optional), extend may only add fields the question lacks, without a default, typed the same wherever they are added; the answer type holds them as optional, absent where they are not asked."},
	{ID: "template", Severity: spec.Error, Summary: "a message template is malformed",
		Why: "Placeholders name a value ({name}, {key.field}) and may take a format; sections show text when a value is set ({?name}), when it is not ({!name}), or once per item of a list ({*list} with {.} the item), each closed by {/name}. The loader refuses what would not render as written: an unclosed or crossed section, {.} outside a per-item section, a per-item section over a value that is no list, a placeholder inside {!name} naming the value that is not set there, a section in an operation id, a typed text or a URL (docs/spec.md, Sections)."},
	{ID: "template-format", Severity: spec.Error, Summary: "a placeholder's format does not fit the type of the value it names",
		Why: "Formats write numbers, money, percentages, durations, dates and lists the same way on every machine (docs/spec.md, Templates); a format over a value of another type would show nonsense, so the loader refuses it at the placeholder."},
	{ID: "bad-regex", Severity: spec.Error, Summary: "a pattern is not a valid RE2 regular expression", Hint: "patterns use Go's RE2 syntax (no lookaround or backreferences)"},
	{ID: "unknown-reference", Severity: spec.Error, Summary: "a name refers to no declared state, validator, argument, field or input request"},
	{ID: "name-collision", Severity: spec.Error, Summary: "two things of one workflow share a name a template could refer to"},
	{ID: "transient", Severity: spec.Error, Summary: "a transient value (continuation.transient) lacks from: or reads:, or has a type or key a shown value cannot have",
		Why: "A transient value is computed by its handler method (from:) before every render of a template naming it and never carried; lint checks that what the method reads is set wherever the value is rendered, so the reads: list (possibly empty) is required: the loader cannot see what Go code reads. Options and sensitive: are refused: an option list is offered and checked in a later round, and a transient value is only ever shown."},
	{ID: "transient-use", Severity: spec.Error, Summary: "a transient value is used where a carried value is needed: an idempotency key, a branch, valuesFrom",
		Why: "A transient value is recomputed on each render and may differ from round to round (a log grows, a diff changes). An operation id must be the same on every attempt, a branch's route must not change on a retry, and the options a form offered must be there when the answer is checked in the next round; all three need a carried continuation field. Templates of messages, prompts, gates and results may name it."},
	{ID: "validator-type", Severity: spec.Error, Summary: "a custom validator is used on a field of another type"},
	{ID: "output", Severity: spec.Error, Summary: "the output directory is not relative to the spec"},
	{ID: "lint-ignore", Severity: spec.Error, Summary: "a lint opt-out names an unknown rule, a rule that cannot be silenced, or gives no reason"},
	{ID: "url", Severity: spec.Error, Summary: "the url of a URL-mode elicitation does not fix its origin: not a path or an https URL written out up to its path, or it has user information",
		Why: "A placeholder before the path could send the user to another site (an open redirect in a consent flow); user information (user:password@) is a credential in the link. http is accepted for localhost and 127.0.0.1 only."},
}

// The checks.

func checkReachability(c *checker, r *Rule) {
	unused := Lookup("unused-state")
	noEnd := Lookup("no-terminal-path")
	for _, t := range c.file.Workflows() {
		g := c.graph(t)
		reach := g.reachable()
		ends := g.canEnd()
		for i, s := range t.States {
			sc := c.toolScope(t, s.Lint)
			switch {
			case s.Name == t.Initial || reach.Has(i):
				if !ends.Has(i) {
					c.report(noEnd, s.Pos, sc, "%s %q: no path from state %q leads to a terminal state", t.Kind, t.Name, s.Name)
				}
			case len(g.In(i)) == 0:
				c.report(unused, s.Pos, sc, "%s %q: state %q is never used (no transition leads to it)", t.Kind, t.Name, s.Name)
			default:
				c.report(r, s.Pos, sc, "%s %q: state %q cannot be reached from %q", t.Kind, t.Name, s.Name, t.Initial)
			}
		}
	}
}

func checkIrreversibleConfirmation(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		var unconfirmed bitset
		for i, s := range t.States {
			if s.Kind != vocab.StateEffect || !(s.Irreversible || t.Destructive) {
				continue
			}
			if unconfirmed == nil {
				// Only a gate's accept edge is consent: a path that leaves
				// a gate by decline or cancel has not been confirmed, even
				// when it leads on to the effect.
				unconfirmed = c.graph(t).reachCutting(acceptsGate)
			}
			what := "irreversible effect"
			if !s.Irreversible {
				what = "effect of destructive tool"
			}
			switch {
			case unconfirmed.Has(i):
				g := c.graph(t)
				where := "it is the initial state"
				if i != g.Initial() {
					where = "on the walk " + g.walkTo(i, func(from int, on vocab.Edge) bool { return acceptsGate(g.states[from], on) })
				}
				c.report(r, s.Pos, c.toolScope(t, s.Lint), "%s %q: %s %s can run without passing a confirmation gate (%s)", t.Kind, t.Name, what, s.Effect.Name, where)
			case t.NonInteractive && c.graph(t).reachCutting(acceptsApproval).Has(i):
				// Answers given up front in the inputs argument pass gates
				// without anyone being shown the question; not an
				// approval, which only its record passes.
				c.report(r, s.Pos, c.toolScope(t, s.Lint), "%s %q: %s %s is gated, but nonInteractive lets the caller confirm up front, without a person", t.Kind, t.Name, what, s.Effect.Name)
			}
		}
	}
}

// checkFirstRoundEffects reports effects that can run before the workflow
// has a requestState and whose operation id is the workflow's own.
func checkFirstRoundEffects(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		var firstRound bitset
		for i, s := range t.States {
			if s.Kind != vocab.StateEffect || !s.Idempotency.IsDefault() {
				continue
			}
			if firstRound == nil {
				// The runtime takes answers only for questions it sent in
				// an earlier round, so any ask or gate ends the first round.
				stop := func(s *spec.State) bool { return s.Kind == vocab.StateAsk || s.Kind == vocab.StateConfirm }
				if t.NonInteractive {
					// Answers may all come up front, but never an approval.
					stop = func(s *spec.State) bool { return s.Approval() != nil }
				}
				firstRound = c.graph(t).pathAvoiding(stop)
			}
			if firstRound.Has(i) {
				c.report(r, s.Pos, c.toolScope(t, s.Lint), "%s %q: effect %s can run in the first call, whose retries are new workflows; it needs an operation id of its own", t.Kind, t.Name, s.Effect.Name)
			}
		}
	}
}

func checkRecheckAfterConfirmation(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		gr := c.graph(t)
		for gi, g := range t.States {
			if g.Kind != vocab.StateConfirm {
				continue
			}
			// What follows the gate's accept edge: a decline or cancel edge
			// is no confirmation, so an effect after it does not follow
			// this gate (irreversible-without-confirmation or another
			// gate covers it).
			unchecked := gr.arrivedAvoiding(gr.nextOf(gi), isKind(vocab.StateCheck))
			for ei, e := range t.States {
				if e.Kind != vocab.StateEffect || !e.Irreversible {
					continue
				}
				if unchecked.Has(ei) {
					c.report(r, e.Pos, c.toolScope(t, e.Lint), "%s %q: irreversible effect %s follows confirmation %q without a recheck", t.Kind, t.Name, e.Effect.Name, g.Name)
				}
			}
		}
	}
}

func checkEffectBeforeInput(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		g := c.graph(t)
		for i, s := range t.States {
			if s.Kind != vocab.StateEffect || inTask(t, g, i) {
				continue // in a task, an ask after an effect is the task's own input path (tasks.go)
			}
			// The first interactive state after it, in flow order, so the
			// message does not change from run to run.
			g.after(i).Each(func(j int) bool {
				if a := g.states[j]; a.Interactive() {
					c.report(r, s.Pos, c.toolScope(t, s.Lint), "%s %q: effect %s runs before state %q asks for input", t.Kind, t.Name, s.Effect.Name, a.Name)
					return false
				}
				return true
			})
		}
	}
}

func checkAskDuplicatesArgument(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		for _, s := range t.States {
			for _, q := range s.Requests {
				for _, f := range q.Fields {
					for _, a := range t.Arguments {
						if c.goName(a.Name) == c.goName(f.Name) {
							c.report(r, f.Pos, c.toolScope(t, f.Lint, q.Lint, s.Lint), "%s %q: input %s.%s asks again for argument %q", t.Kind, t.Name, q.Key, f.Name, a.Name)
						}
					}
				}
			}
		}
	}
}

// deprecatedInstead says, per deprecated capability, what SEP-2577's
// migration path is.
var deprecatedInstead = map[vocab.Capability]string{
	vocab.CapSampling: "call an LLM provider's API from a check instead",
	vocab.CapRoots:    "take the directories or files as tool arguments, resource URIs or server configuration instead",
}

func checkDeprecatedFeatures(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		for _, capa := range t.Requires {
			if instead, ok := deprecatedInstead[capa]; ok {
				c.report(r, t.RequiresPos, c.toolScope(t), "%s %q requires the %s capability, which only %s needs, deprecated since MCP 2026-07-28 (SEP-2577); %s", t.Kind, t.Name, capa, capa, instead)
			}
		}
		for _, s := range t.States {
			for _, q := range s.Requests {
				if instead, ok := deprecatedInstead[q.Kind.Capability()]; ok {
					c.report(r, q.Pos, c.toolScope(t, q.Lint, s.Lint), "%s %q: request %q uses %s, deprecated since MCP 2026-07-28 (SEP-2577); %s", t.Kind, t.Name, q.Key, q.Kind.Method(), instead)
				}
			}
		}
	}
}

func checkSensitiveSealed(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		if t.Continuation.Storage != vocab.Sealed {
			continue
		}
		for _, f := range t.Continuation.Fields {
			if f.Sensitive {
				c.report(r, f.Pos, c.toolScope(t, f.Lint), "%s %q: sensitive field %q is in sealed state", t.Kind, t.Name, f.Name)
			}
		}
		for _, s := range t.States {
			for _, q := range s.Requests {
				for _, f := range q.Fields {
					if f.Sensitive {
						c.report(r, f.Pos, c.toolScope(t, f.Lint, q.Lint, s.Lint), "%s %q: sensitive answer %s.%s is in sealed state", t.Kind, t.Name, q.Key, f.Name)
					}
				}
			}
		}
	}
}

// checkSensitiveInTemplate reports placeholders that render a sensitive
// continuation field or form field.
func checkSensitiveInTemplate(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		for _, s := range t.States {
			for _, tpl := range s.Templates() {
				for _, ref := range tpl.Refs() {
					var f *spec.Field
					switch {
					case ref.Kind == spec.RefContinuation && len(ref.Path) > 0:
						f = t.Continuation.Field(ref.Path[0])
					case ref.Kind == spec.RefFormField && len(ref.Path) == 2:
						f = formField(t, ref.Path[0], ref.Path[1])
					}
					if f != nil && f.Sensitive {
						c.report(r, ref.Pos, c.toolScope(t, s.Lint), "%s %q: state %q renders sensitive value {%s}", t.Kind, t.Name, s.Name, ref.Name())
					}
				}
			}
		}
	}
}

func checkStringMaxLength(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		check := func(fs []*spec.Field, where string, sc scope) {
			for _, f := range fs {
				for _, x := range []*spec.Field{f, f.Items} {
					if x != nil && x.Type == spec.TypeString && x.MaxLength == nil {
						c.report(r, x.Pos, append(scope{x.Lint, f.Lint}, sc...), "%s %q: string %s %q has no maxLength", t.Kind, t.Name, where, x.Name)
					}
					if x != nil && x.Type == spec.TypeOption && (x.MaxLength == nil || x.TitleMaxLength == nil) {
						c.report(r, x.Pos, append(scope{x.Lint, f.Lint}, sc...), "%s %q: the options of %s %q need maxLength (of the value) and titleMaxLength (of the title)", t.Kind, t.Name, where, f.Name)
					}
				}
			}
		}
		check(t.Arguments, "argument", c.toolScope(t))
		check(t.Continuation.Fields, "continuation field", c.toolScope(t))
		for _, s := range t.States {
			for _, q := range s.Requests {
				check(q.Fields, "form field", c.toolScope(t, q.Lint, s.Lint))
				if q.Kind == vocab.Sample && q.MaxLength == nil {
					c.report(r, q.Pos, c.toolScope(t, q.Lint, s.Lint), "%s %q: sampled answer %q has no maxLength", t.Kind, t.Name, q.Key)
				}
			}
		}
	}
}

func checkEnumValues(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		check := func(fs []*spec.Field, sc scope) {
			for _, f := range fs {
				for _, x := range []*spec.Field{f, f.Items} {
					if x != nil && x.Type == spec.TypeEnum && x.ValuesFrom == nil && len(x.Values) == 0 {
						c.report(r, x.Pos, append(scope{x.Lint, f.Lint}, sc...), "%s %q: enum %q has no values", t.Kind, t.Name, x.Name)
					}
				}
			}
		}
		check(t.Arguments, c.toolScope(t))
		check(t.Continuation.Fields, c.toolScope(t))
		for _, s := range t.States {
			for _, q := range s.Requests {
				check(q.Fields, c.toolScope(t, q.Lint, s.Lint))
			}
		}
	}
}

var vaguePhrase = regexp.MustCompile(`(?i)\b(additional|more|further|extra|some|other)\s+(info|information|details?|data|input)\b|\bprovide\s+(input|information|details)\b|\bneeds?\s+(input|information|more)\b`)

func checkVagueMessages(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		for _, s := range t.States {
			for _, q := range s.Requests {
				if q.Kind == vocab.Elicit && q.Message != nil && c.vague(q.Message, q.Fields) {
					c.report(r, q.Message.Pos, c.toolScope(t, q.Lint, s.Lint), "%s %q: message %q of %q does not say what is needed", t.Kind, t.Name, q.Message.Raw, q.Key)
				}
			}
			if s.Confirm != nil && s.Confirm.Message != nil && c.vague(s.Confirm.Message, nil) {
				c.report(r, s.Confirm.Message.Pos, c.toolScope(t, s.Lint), "%s %q: confirmation %q does not say what is being confirmed", t.Kind, t.Name, s.Confirm.Message.Raw)
			}
		}
	}
}

// vague reports whether a message is a stock phrase, or is short and names
// neither a value (placeholder) nor any of its fields.
func (c *checker) vague(m *spec.Template, fields []*spec.Field) bool {
	if vaguePhrase.MatchString(m.Raw) {
		return true
	}
	if len(m.Refs()) > 0 || len(strings.Fields(m.Raw)) >= 4 {
		return false
	}
	text := strings.ToLower(m.Raw)
	for _, f := range fields {
		for _, w := range append(strings.Fields(strings.ToLower(f.Title)), strings.ToLower(c.goName(f.Name))) {
			if len(w) >= 3 && strings.Contains(text, w) {
				return false
			}
		}
	}
	return true
}

func checkContinuationSize(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		if t.Continuation.Storage != vocab.Sealed {
			continue
		}
		for _, s := range t.States {
			if !s.Interactive() {
				continue
			}
			n, parts := tokenSizeAt(c.graph(t), s)
			var msg string
			switch {
			case n == unbounded:
				msg = fmt.Sprintf("%s %q: requestState issued at %q has no size limit: unbounded are %s", t.Kind, t.Name, s.Name, largest(parts))
			case n > t.Continuation.MaxBytes:
				msg = fmt.Sprintf("%s %q: requestState issued at %q can reach %d bytes, over the budget of %d; the largest: %s", t.Kind, t.Name, s.Name, n, t.Continuation.MaxBytes, largest(parts))
			default:
				continue
			}
			hint := r.Hint
			if anyWide(parts) {
				hint += "; a string counts 4 bytes a character unless its pattern or format admits only narrower ones (ASCII: 1), and no more than its pattern can match"
			}
			if anyOptions(parts) {
				hint += "; a list of options carries every title (titleMaxLength, 4 bytes a character unless titlePattern allows narrower ones) while the workflow waits, and the answer only the chosen value: offer fewer (maxItems), shorten titleMaxLength, constrain titles with titlePattern, or keep the continuation server-side (storage: reference)"
			}
			c.reportHint(r, hint, s.Pos, c.toolScope(t, s.Lint), "%s", msg)
		}
	}
}

func checkDestructiveTTL(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		if t.Continuation.TTLSet {
			continue
		}
		irreversible := slices.ContainsFunc(t.States, func(s *spec.State) bool { return s.Kind == vocab.StateEffect && s.Irreversible })
		if t.Destructive || irreversible {
			c.report(r, t.Pos, c.toolScope(t), "%s %q is destructive but has no continuation.ttl (default %s)", t.Kind, t.Name, spec.DefaultTTL)
		}
	}
}

func checkUnusedInput(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		used := map[string]bool{}
		for _, s := range t.States {
			for _, tpl := range s.Templates() {
				for _, ref := range tpl.Refs() {
					used[ref.Path[0]] = true
				}
			}
			if b := s.Branch; b != nil && b.On.Kind == spec.RefFormField {
				used[b.On.Path[0]] = true // a branch routes on it
			}
		}
		for _, vr := range t.ValidatorReads {
			for _, ref := range vr.Reads {
				if ref.Kind == spec.RefFormField {
					used[ref.Path[0]] = true // a validator with context reads it
				}
			}
		}
		g := c.graph(t)
		for i, s := range t.States {
			if s.Kind != vocab.StateAsk {
				continue
			}
			// Only what follows the answer counts: after a decline or
			// cancel there is no answer for a check or effect to read.
			if g.handlerAfterNext(i) {
				continue
			}
			for _, q := range s.Requests {
				if !used[q.Key] && !questionUsedElsewhere(c, t, q) {
					c.report(r, q.Pos, c.toolScope(t, q.Lint, s.Lint), "%s %q: answer %q is never used (no template or branch names it and no check or effect follows)", t.Kind, t.Name, q.Key)
				}
			}
		}
	}
}

// checkOutcomesMismatch reports a check whose states disagree on its
// outcomes, at the later use, naming the first.
func checkOutcomesMismatch(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		first := map[string]*spec.State{}
		for _, s := range t.States {
			if s.Check == nil {
				continue
			}
			prev, ok := first[s.Check.Name]
			if !ok {
				first[s.Check.Name] = s
				continue
			}
			if have, had := outcomeList(s), outcomeList(prev); have != had {
				c.report(r, s.Check.Pos, c.toolScope(t, s.Lint), "%s %q: check %s has outcomes [%s] in state %q but [%s] in state %q (line %d)",
					t.Kind, t.Name, s.Check.Name, have, s.Name, had, prev.Name, prev.Check.Pos.Line)
			}
		}
	}
}

// outcomeList is a check state's outcome names, sorted, comma-separated.
func outcomeList(s *spec.State) string {
	names := make([]string, len(s.Outcomes))
	for i, b := range s.Outcomes {
		names[i] = b.Name
	}
	return strings.Join(names, ", ")
}

// checkKeyCollisions reports a name whose continuation key (spec.FieldKey)
// another name of its group already has.
func checkKeyCollisions(c *checker, r *Rule) {
	for _, t := range c.file.Workflows() {
		sc := c.toolScope(t)
		check := func(what string, names []named) {
			seen := map[uint32]named{}
			for _, n := range names {
				k := spec.FieldKey(n.name)
				if first, ok := seen[k]; ok {
					c.report(r, n.pos, sc, "%s %q: %s %q has the continuation key of %q (line %d)", t.Kind, t.Name, what, n.name, first.name, first.pos.Line)
					continue
				}
				seen[k] = n
			}
		}
		fields := func(fs []*spec.Field) []named {
			var out []named
			for _, f := range fs {
				out = append(out, named{f.Name, f.Pos})
			}
			return out
		}
		check("argument", fields(t.Arguments))
		check("continuation field", fields(t.Continuation.Fields))
		var keys, gates, asksAgain []named
		for _, s := range t.States {
			for _, q := range s.Requests {
				if slices.Contains(t.AskersOf(q), s) && t.AskersOf(q)[0] != s {
					continue // a question, seen where it is first asked
				}
				keys = append(keys, named{q.Key, q.Pos})
				check("form field", fields(q.Fields))
			}
			if s.Confirm != nil {
				gates = append(gates, named{s.Name, s.Pos})
			}
			if s.CountsRefusals() {
				asksAgain = append(asksAgain, named{s.Name, s.Pos})
			}
		}
		check("input request", keys)
		check("confirmation state", gates)
		check("state that asks again", asksAgain) // the refusals group
	}
}

// named is a spec name and where it is declared.
type named struct {
	name string
	pos  spec.Pos
}

// checkGoCollisions reports names that differ in the spec but not in Go,
// within each scope the generator emits into.
func checkGoCollisions(c *checker, r *Rule) {
	collide := func(what string, sc scope, names []named) {
		first := map[string]named{}
		for _, n := range names {
			g := c.goName(n.name)
			if prev, ok := first[g]; ok && prev.name != n.name {
				c.report(r, n.pos, sc, "%s %q and %q are both %s in Go (first at %s)", what, prev.name, n.name, g, prev.pos)
				continue
			}
			if _, ok := first[g]; !ok {
				first[g] = n
			}
		}
	}
	var workflows []named
	for _, t := range c.file.Workflows() {
		workflows = append(workflows, named{t.Name, t.Pos})
	}
	collide("tools and prompts", scope{c.file.Lint}, workflows)
	for _, t := range c.file.Workflows() {
		sc := c.toolScope(t)
		var states, args, conts, methods, flowFields []named
		methods = append(methods, named{"authorize", t.Pos})
		for _, v := range c.file.Validators {
			methods = append(methods, named{v.Name, v.Pos})
		}
		for _, s := range t.States {
			states = append(states, named{s.Name, s.Pos})
			if s.Check != nil {
				methods = append(methods, named{s.Check.Name, s.Check.Pos})
			}
			if s.Effect != nil {
				methods = append(methods, named{s.Effect.Name, s.Effect.Pos})
			}
			if len(s.Output) > 0 {
				methods = append(methods, named{s.Name + "Output", s.OutputPos}) // its output method
			}
			if a := s.Approval(); a != nil && a.Approvers != "" {
				methods = append(methods, named{s.Name + "Approvers", a.Pos}) // its approval hooks
			}
			if a := s.Approval(); a != nil && a.EscalateTo != "" {
				methods = append(methods, named{s.Name + "Escalation", a.Pos})
			}
			var outcomes []named
			for _, b := range s.Outcomes {
				outcomes = append(outcomes, named{b.Name, b.Pos})
			}
			collide("outcomes", sc, outcomes)
			for _, q := range s.Requests {
				flowFields = append(flowFields, named{q.Key, q.Pos})
				var form []named
				for _, f := range q.Fields {
					form = append(form, named{f.Name, f.Pos})
				}
				collide("form fields", sc, form)
			}
		}
		for _, a := range t.Arguments {
			args = append(args, named{a.Name, a.Pos})
		}
		for _, f := range t.Continuation.Fields {
			conts = append(conts, named{f.Name, f.Pos})
		}
		for _, f := range t.AllFields() {
			var vals []named
			for _, v := range f.Values {
				vals = append(vals, named{v.Value, v.Pos})
			}
			collide(fmt.Sprintf("values of %s", f.Name), sc, vals)
		}
		collide("states", sc, states)
		collide("arguments", sc, args)
		collide("continuation fields", sc, conts)
		collide("handler methods", sc, dedupe(methods))
		c.methodKinds(r, sc, t)
		collide("input request keys", sc, flowFields)
		for _, k := range flowFields {
			if g := spec.GoName(k.name); slices.Contains(spec.FlowMembers, g) {
				c.report(r, k.pos, sc, "input request key %q is %s in Go, a field every flow already has", k.name, g)
			}
		}
	}
}

// methodKinds reports a spec name used for two kinds of handler method of
// tool t (a check and a content source, say): the generated handler has one
// method of that name, with one signature, so the code would not compile.
func (c *checker) methodKinds(r *Rule, sc scope, t *spec.Tool) {
	type use struct {
		what string
		n    named
	}
	first := map[string]use{}
	add := func(what string, n named) {
		g := c.goName(n.name)
		if prev, ok := first[g]; ok {
			if prev.what != what {
				c.report(r, n.pos, sc, "%q is the handler method %s as %s, and %q (at %s) makes it %s: one method has one signature; give them different names",
					n.name, g, what, prev.n.name, prev.n.pos, prev.what)
			}
			return
		}
		first[g] = use{what, n}
	}
	add("the authorization method", named{"authorize", t.Pos})
	for _, v := range c.file.Validators {
		add("a validator", named{v.Name, v.Pos})
	}
	for _, s := range t.States {
		if s.Check != nil {
			add("a check or effect", named{s.Check.Name, s.Check.Pos})
		}
		if s.Effect != nil {
			add("a check or effect", named{s.Effect.Name, s.Effect.Pos})
		}
		if len(s.Output) > 0 {
			add("an output method", named{s.Name + "Output", s.OutputPos})
		}
		if a := s.Approval(); a != nil && a.Approvers != "" {
			add("an approval hook", named{s.Name + "Approvers", a.Pos})
		}
		if a := s.Approval(); a != nil && a.EscalateTo != "" {
			add("an approval hook", named{s.Name + "Escalation", a.Pos})
		}
		contents := slices.Clone(s.Content)
		for _, m := range s.Messages {
			if m.Content != nil {
				contents = append(contents, m.Content)
			}
		}
		for _, ct := range contents {
			if ct.From != nil {
				add("a content source", named{ct.From.Name, ct.From.Pos})
			}
		}
	}
	for _, a := range t.Arguments {
		if a.Complete != nil && a.Complete.From != nil {
			add("a completion source", named{a.Complete.From.Name, a.Complete.From.Pos})
		}
	}
}

// dedupe keeps the first use of each spec name (a check used in two states
// is one method).
func dedupe(ns []named) []named {
	seen := map[string]bool{}
	var out []named
	for _, n := range ns {
		if !seen[n.name] {
			seen[n.name] = true
			out = append(out, n)
		}
	}
	return out
}

// formField returns field name of the form of request key, or nil.
func formField(t *spec.Tool, key, name string) *spec.Field {
	for _, s := range t.States {
		if q := s.Request(key); q != nil {
			return q.Field(name)
		}
	}
	return nil
}

// questionUsedElsewhere reports whether a question (asked in several
// states) is followed by a check or effect after one of the states asking
// it: its answer is then used.
func questionUsedElsewhere(c *checker, t *spec.Tool, q *spec.InputRequest) bool {
	if !t.Shared(q) {
		return false
	}
	g := c.graph(t)
	for i, s := range t.States {
		if !slices.Contains(s.Requests, q) {
			continue
		}
		if g.handlerAfterNext(i) {
			return true
		}
	}
	return false
}
