package mrtr

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/seal"
)

// Kind says which MCP method a program answers.
type Kind uint8

const (
	KindTool   Kind = iota + 1 // tools/call
	KindPrompt                 // prompts/get
)

// Method is the MCP method name.
func (k Kind) Method() string {
	if k == KindPrompt {
		return "prompts/get"
	}
	return "tools/call"
}

// StateKind says what happens in a state.
type StateKind uint8

const (
	StateCheck StateKind = iota + 1
	StateAsk
	StateConfirm
	StateEffect
	StateTerminal
)

var stateKindNames = [...]string{"", "check", "ask", "confirm", "effect", "terminal"}

func (k StateKind) String() string {
	if int(k) < len(stateKindNames) {
		return stateKindNames[k]
	}
	return "unknown"
}

// Interactive reports whether states of this kind send input requests.
func (k StateKind) Interactive() bool { return k == StateAsk || k == StateConfirm }

// RequestKind is the MCP method of an input request.
type RequestKind uint8

const (
	Elicit RequestKind = iota + 1 // elicitation/create
	Sample                        // sampling/createMessage
	Roots                         // roots/list
)

// Capability is the client capability the request kind needs.
func (k RequestKind) Capability() string {
	switch k {
	case Sample:
		return "sampling"
	case Roots:
		return "roots"
	}
	return "elicitation"
}

// Storage says where a continuation lives between rounds.
type Storage uint8

const (
	// Sealed: the continuation travels inside requestState, encrypted and
	// authenticated.
	Sealed Storage = iota + 1
	// Reference: requestState carries a random reference; the data stays in
	// the store, bound to principal, tool and workflow.
	Reference
)

// Descriptor is the static description of a program, generated from the
// spec. The engine reads it; it never changes at run time.
type Descriptor struct {
	Kind        Kind
	Name        string
	Title       string
	Description string
	// InputSchema is the JSON Schema of the arguments (tools) — the MCP
	// inputSchema.
	InputSchema json.RawMessage
	// PromptArguments describe a prompt's arguments.
	PromptArguments []*mcp.PromptArgument
	Destructive     bool
	// Requires lists client capabilities needed on every round.
	Requires []string
	// NonInteractive programs accept every answer up front in the "inputs"
	// argument.
	NonInteractive bool
	TTL            time.Duration
	Storage        Storage
	// SchemaHash identifies the positional shape of the continuation
	// (states, fields, answers) of envelope versions 1 and 2: a token of
	// those versions sealed under another hash is rejected. Version 3
	// tokens name their state and values instead, and are checked value by
	// value (docs/evolution.md).
	SchemaHash uint64
	// Initial is the state a new workflow starts in. States are numbered
	// from 1 in flow order; States[i] describes state i+1. Numbers are for
	// this build only: tokens name states (StateInfo.Name).
	Initial     uint16
	States      []StateInfo
	Transitions []Transition
}

// State returns the description of state s, or nil.
func (d *Descriptor) State(s uint16) *StateInfo {
	if s == 0 || int(s) > len(d.States) {
		return nil
	}
	return &d.States[s-1]
}

// stateNamed returns the number and description of the state called
// name, or 0 and nil.
func (d *Descriptor) stateNamed(name string) (uint16, *StateInfo) {
	for i := range d.States {
		if d.States[i].Name == name {
			return uint16(i + 1), &d.States[i]
		}
	}
	return 0, nil
}

// Subject is how tokens and records name the program: "tools/call:<name>".
func (d *Descriptor) Subject() string {
	if d.Kind == KindPrompt {
		return seal.PromptSubject(d.Name)
	}
	return seal.ToolSubject(d.Name)
}

// requestInfo finds the request with key (keys are unique in a program).
func (d *Descriptor) requestInfo(key string) *RequestInfo {
	for i := range d.States {
		if j := d.States[i].request(key); j >= 0 {
			return &d.States[i].Requests[j]
		}
	}
	return nil
}

// requestOrder returns the keys of reqs in the order the program lists its
// requests (states in number order, requests in spec order); keys it does
// not know come last, sorted.
func (d *Descriptor) requestOrder(reqs mcp.InputRequestMap) []string {
	keys := make([]string, 0, len(reqs))
	for i := range d.States {
		for _, q := range d.States[i].Requests {
			if _, ok := reqs[q.Key]; ok {
				keys = append(keys, q.Key)
			}
		}
	}
	var rest []string
	for k := range reqs {
		if d.requestInfo(k) == nil {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(keys, rest...)
}

// allows reports whether the transition table has from → to.
func (d *Descriptor) allows(from, to uint16) bool {
	for _, t := range d.Transitions {
		if t.From == from && t.To == to {
			return true
		}
	}
	return false
}

// StateInfo describes one state.
type StateInfo struct {
	Name     string
	Kind     StateKind
	Requests []RequestInfo // ask and confirm states
	// Check names the handler check of a check state, and Outcomes its
	// outcomes, if any, sorted by name: generated code numbers them from 1
	// in this order.
	Check    string
	Outcomes []string
	// End is how a terminal state ends the workflow.
	End Outcome
	// OperationID is the template of an effect state's operation id when it
	// is not the workflow's own ("refund-{orderId}"): the effect runs once
	// per id, and later visits replay it.
	OperationID string
	// BusinessKey is set when OperationID is made only of what the caller
	// sends, arguments and answers: a second workflow sent the same shares
	// the operation, and is refused instead of performing the effect again.
	// (An id using the workflow id or continuation fields may differ.)
	BusinessKey bool
}

// request returns the index of the request with key in s.Requests, or -1.
func (s *StateInfo) request(key string) int {
	for i, q := range s.Requests {
		if q.Key == key {
			return i
		}
	}
	return -1
}

// RequestInfo describes one input request of an ask (or the single
// request of a confirmation gate).
type RequestInfo struct {
	Key      string
	Kind     RequestKind
	Optional bool
	// GateField is the boolean field of a confirmation gate's form ("" for
	// asks).
	GateField string
}

// Transition is one edge of the state machine.
type Transition struct {
	From, To uint16
	On       string // "next", "outcome:<name>", "decline", "cancel"
}

// Program is the generated, typed half of one tool or prompt; F is its flow
// type (a pointer to the generated <Tool>Flow struct). The engine calls the
// methods in a fixed order each round; generated code implements them, and
// handlers never see this interface.
type Program[F any] interface {
	Descriptor() *Descriptor
	// NewFlow decodes and validates the arguments into a flow at the
	// initial state. Invalid arguments return an *ArgumentError; a custom
	// validator that could not check one returns a *ValidatorError (a
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
	CheckContinuation(ctx context.Context, f F) Problems
	// State and SetState read and move the flow's current state.
	State(f F) uint16
	SetState(f F, s uint16)
	// Questions returns the requests of interactive state s as a round
	// first asks them (no problems added). The engine seals a digest of
	// each question it sends, and takes an answer in the next round only if
	// the question it would send now is the same one.
	Questions(f F, s uint16) []Pending
	// Step runs the current state once and says what comes next.
	Step(ctx context.Context, r *Round, f F) (Step, error)
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
}

// NeedsInput reports whether the round asks for more input.
func (r *Reply) NeedsInput() bool { return r.Final == nil }

// Outcome is how a workflow ended.
type Outcome string

const (
	OutcomeSuccess      Outcome = "success"
	OutcomeCancelled    Outcome = "cancelled"    // the user declined or cancelled
	OutcomeFailed       Outcome = "failed"       // a terminal state of outcome failed
	OutcomeRejected     Outcome = "rejected"     // a check or effect rejected the request
	OutcomeUnauthorized Outcome = "unauthorized" // Authorize refused
	OutcomeError        Outcome = "error"        // a dependency failed
	// OutcomeInvalidArguments: the arguments failed validation; the result
	// names each problem so the caller (often a model) can correct them.
	// Prompts turn it into JSON-RPC error -32602.
	OutcomeInvalidArguments Outcome = "invalid_arguments"
)

// Final is the result of a finished workflow.
type Final struct {
	Outcome Outcome `json:"outcome"`
	// Text is a tool's result text.
	Text string `json:"text,omitempty"`
	// Messages are a prompt's resulting messages.
	Messages []PromptMessage `json:"messages,omitempty"`
}

// IsError reports whether the result is an error result (MCP isError).
func (f *Final) IsError() bool {
	return f.Outcome != OutcomeSuccess && f.Outcome != OutcomeCancelled
}

// PromptMessage is one message of a prompt's result.
type PromptMessage struct {
	Role string `json:"role"`
	Text string `json:"text"`
}
