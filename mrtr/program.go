package mrtr

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
)

// Program is the generated, typed half of one tool or prompt; F is its flow
// type (a pointer to the generated <Tool>Flow struct). The engine calls the
// methods in a fixed order each round; generated code implements them, and
// handlers never see this interface.
type Program[F any] interface {
	Descriptor() *mrtrimpl.Descriptor
	// NewFlow decodes and validates the arguments into a flow at the
	// initial state. Invalid arguments return an *failure.ArgumentError; a
	// custom validator that could not check one returns another error (a
	// dependency failure, not the caller's mistake).
	NewFlow(ctx context.Context, c *Call, args json.RawMessage) (F, error)
	// AppendArgs appends the canonical encoding of the flow's arguments,
	// tagged entries in name order where absent optional arguments write
	// nothing: requestState is bound to its digest, so a continuation
	// cannot be replayed with other arguments, and adding an optional
	// argument to the spec keeps the digest of calls that do not send it.
	AppendArgs(dst []byte, f F) []byte
	// AppendArgsV2 appends the positional encoding of the arguments that
	// tokens of envelope versions 1 and 2 are bound to.
	AppendArgsV2(dst []byte, f F) []byte
	// Authorize asks the handler whether the caller may run this workflow
	// with these arguments, now. It runs on every round. A Rejection
	// (mrtr.Forbidden) refuses the caller; any other error means the check
	// could not be made and ends the round as a dependency failure.
	Authorize(ctx context.Context, f F) error
	// AppendContinuation and LoadContinuation encode and decode what the
	// flow carries between rounds (continuation fields, answers, the gates
	// it passed) as tagged entries (binenc): a build of a changed spec
	// reads them as docs/evolution.md says. LoadContinuation refuses a
	// value whose kind changed (*binenc.KindError), an enum value this
	// build does not have (*binenc.EnumError) and a gate passed under
	// another question (GateChanged).
	AppendContinuation(dst []byte, f F) []byte
	LoadContinuation(f F, data []byte) error
	// LoadContinuationV2 decodes the positional continuation of tokens of
	// envelope versions 1 and 2 (and of effect records written by the
	// builds that minted them), which open on a build of the same spec
	// only.
	LoadContinuationV2(f F, data []byte) error
	// CheckContinuation reports carried values the spec's built-in
	// constraints refuse: continuation fields and answers. Handlers fill
	// the continuation; the engine checks it before sealing it, so a
	// handler's mistake fails the round instead of being carried on, and
	// again when it opens one, so a value a narrowed constraint no longer
	// allows is refused (constraint_narrowed) instead of acted on.
	CheckContinuation(ctx context.Context, f F) mrtrimpl.Problems
	// State and SetState read and move the flow's current state.
	State(f F) uint16
	SetState(f F, s uint16)
	// Questions returns the requests of interactive state s as a round
	// first asks them (no problems added). The engine seals a digest of
	// each question it sends, and takes an answer in the next round only if
	// the question it would send now is the same one.
	Questions(f F, s uint16) []mrtrimpl.Pending
	// Step runs the current state once and says what comes next.
	Step(ctx context.Context, r mrtrimpl.Round, f F) (mrtrimpl.Step, error)
}

// Call is what handler methods know about the round being served.
type Call struct {
	// Principal is the authenticated caller ("" when anonymous).
	Principal string
	// WorkflowID identifies the workflow across its rounds (32 hex digits).
	// Use it in logs and traces, never as a metric label.
	WorkflowID string
	// Round counts the requests of this workflow, from 1.
	Round int
	// Capabilities are the client's declared capabilities (never nil).
	Capabilities *mcp.ClientCapabilities
	// Instance names the serving instance (Config.Instance).
	Instance string
	// Logger carries the workflow id, tool and round.
	Logger *slog.Logger
	// Attempt is set while an effect method runs (nil in every other
	// handler method): which operation it performs and whether an earlier
	// attempt may already have performed it.
	Attempt *Attempt
}

// OperationID names one side effect of one workflow (or, with a business
// operation id, of every workflow sent the same values): the same on every
// retry, on every instance, and in a takeover after a crash. Pass it as the
// idempotency key of the downstream call (payment and messaging APIs accept
// one) so that the rare second attempt of a crashed one is deduplicated
// there too.
type OperationID string

// Attempt describes the run of an effect in progress.
//
// What the engine guarantees: an effect whose method returned (nil or a
// Rejection) runs once per operation id; retries and duplicates of the
// round, on any instance, replay its recorded outcome, also when the store
// failed for a while right after it returned (the instance keeps trying to
// record it for Config.RecordFor). An effect whose instance died while it
// ran (or that returned while the store stayed unreachable for longer than
// the lease, then lost the race to a retry) is run again by the next
// attempt after the lease, with Takeover set: at least once, never silently.
type Attempt struct {
	// OperationID is the operation's stable id.
	OperationID OperationID
	// Takeover is set when an earlier attempt claimed this operation and
	// never recorded an outcome (its instance died, or lost the store, while
	// the effect ran): the effect may already have happened. Check the
	// downstream system (by OperationID) before doing it again.
	Takeover bool
}

// Request is one tools/call or prompts/get, as the engine sees it.
type Request struct {
	// Arguments are the call's arguments as a JSON object (prompt
	// arguments are encoded as an object of strings).
	Arguments json.RawMessage
	// InputResponses answer the previous round's input requests.
	InputResponses mcp.InputResponseMap
	// RequestState is the continuation echoed from the previous round.
	RequestState string
	// Capabilities are the client's declared capabilities (nil: none).
	Capabilities *mcp.ClientCapabilities
	// Principal is the authenticated caller, as Config.Authenticate found it.
	Principal string

	// deferAt, when set, ends the round before the state it numbers runs,
	// with a continuation positioned there and no input requests: the
	// task a tools/call round hands over to resumes from it (wiretasks.go).
	deferAt uint16
	// task is set on the round of a task's step (wiretasks.go).
	task *taskRound
}

// Reply is the outcome of a round: either input is required, or the
// workflow is finished.
type Reply struct {
	// InputRequests and RequestState are set when input is required.
	InputRequests mcp.InputRequestMap `json:"inputRequests,omitempty"`
	RequestState  string              `json:"requestState,omitempty"`
	// Final is set when the workflow ended.
	Final *Final `json:"final,omitempty"`
	// Path lists the states this round ran, in order (for tests and
	// debugging; a replayed reply has none).
	Path []string `json:"-"`

	// nothingRan marks the reply of a round that failed on the store
	// before any state ran (storeFailed): its client may send it again;
	// a task's step is run again instead of ending the task (wiretasks.go).
	nothingRan bool
}

// NeedsInput reports whether the round asks for more input.
func (r *Reply) NeedsInput() bool { return r.Final == nil }

// taskRound is what the round of a task's step keeps for the step: the
// codec its continuation opens with, and why it failed, if it did before
// any state ran.
type taskRound struct {
	codec *seal.Codec
	// id is the task's; waiting is set by a round that ends waiting for an
	// approval (the step ends with tasks.StepEnd.Wait).
	id, waiting string
	// rejected is why the continuation was refused (rejectState).
	rejected error
	// storeFailed is the store's error while loading the continuation.
	storeFailed error
}
