// Package mrtr is the runtime of the multi-round MCP tools mrtrgen
// generates: what every tool shares, written and tested once. This page is
// its manual; what hand-written code needs is all here.
//
// # Serving
//
// Build one [Engine] per process with [NewEngine] and a [Config]: the
// server's audience, the key ring that seals requestState (package seal) and
// the store that keeps round and effect records (package store). Register
// the generated tools on an mcp.Server (each generated package has
// RegisterAll and a Register function per tool), serve it with [Handler],
// and call [Engine.Drain] on shutdown.
//
// # Handlers
//
// You implement the generated Handler interface of each tool. Every method
// gets the workflow's flow, whose Call field is a [Call]: the principal, the
// workflow id, the round, the client's capabilities, a logger, and, while an
// effect runs, its [Attempt] (the [OperationID] to pass downstream, and
// whether an earlier attempt may already have done the work). Handlers
// answer with errors of four kinds:
//
//   - [Forbidden] from Authorize refuses the caller (it runs on every round);
//   - [Reject] from a check or an effect refuses the request with a message
//     the caller sees; an effect's rejection is recorded and replayed;
//   - [AskAgain] from a check whose state declares askAgain refuses the
//     answer the user gave with a message: the question is asked afresh,
//     showing it, up to the spec's maxAttempts;
//   - [Invalid] from a custom validator tells the user what is wrong with a
//     value, and the question is asked again. A validator with context
//     (reads: in the spec) also receives what it reads of the flow, typed;
//     its refusals are counted against the ask's maxAttempts, the last one
//     going to the ask's onExhausted state.
//
// Any other error is a dependency failure: the round ends with a retryable
// error result and the error goes to the log only.
//
// A terminal state that declares output has a method <State>Output that
// fills the tool's output struct: the generated code checks it against the
// spec (a required field left unset fails the round, logged with the state
// and the field) and sends it as the result's structuredContent, which the
// round record keeps for retries. A check or effect that declares
// progress: true gets a [Progress] reporter, bound to the request that runs
// it: it sends notifications/progress on that request's progressToken, and
// nothing once the request has been answered.
//
// # What the engine guarantees
//
// Every round of every program goes through the same trust boundary:
//
//  1. authenticate (Config.Authenticate) and check the client's capabilities:
//     those the spec requires, and, at a workflow's first round, those every
//     way through the workflow needs (every walk to a success or failed
//     terminal asks the model, say), refused with -32021 before anything is
//     asked or run,
//  2. decode and validate the arguments (generated validators),
//  3. authorize (the handler's Authorize, on every round),
//  4. verify the continuation: open the sealed requestState, bound to this
//     server, tool, principal and arguments, and reject anything tampered
//     or expired, or that this build of the spec cannot continue
//     (docs/evolution.md says which changes those are),
//  5. replay: a retried round returns its first reply,
//  6. run states until input is needed or the workflow ends: answers are
//     validated again, checks re-run, and effects go through idempotency
//     records so a retry never repeats a side effect that returned (see
//     [Attempt] for the exact guarantee when an instance dies mid-effect),
//  7. seal the new continuation, or clean it up when the workflow is done.
//
// # URL-mode elicitation
//
// An elicitUrl request sends the client a URL to open (mode "url") for a
// step that must not pass through it: a consent, a card form. It needs the
// client capability elicitation.url (elicitation: {url: {}}); a client that
// declares forms only gets -32021 with data.requiredCapabilities
// {"elicitation": {"url": {}}}. A url written as a path is sent on
// [Config.PublicURL]. Accepting it carries no content and proves nothing:
// the check after the ask must ask the service whether the step was
// completed by f.Call.Principal for f.Call.WorkflowID (the requestState is
// bound to both), and return [AskAgain] when it was not. The page itself
// must sign its user in: the URL is not a credential.
//
// The engine speaks MCP through the official Go SDK: [Handler] serves
// protocol 2026-07-28 statelessly while older clients keep working on
// stateful sessions. Every round gets a span and the mcp.mrtr.* counters
// (OpenTelemetry API; no-op unless a provider is installed).
//
// # Tests
//
// [Run] serves one round of a [Program] without a transport, from a
// [Request] to a [Reply] whose Final has an [Outcome]; package mrtrtest
// builds on it (harnesses, fakes, the MRTR matrix). Generated code itself
// uses package mrtrimpl, which hand-written code does not need.
package mrtr
