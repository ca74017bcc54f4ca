package mrtrimpl

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/internal/machine"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Descriptor is the static description of a program, generated from the
// spec. The engine reads it; it never changes at run time.
type Descriptor struct {
	Kind        vocab.Kind
	Name        string
	Title       string
	Description string
	// InputSchema is the JSON Schema of the arguments (tools) — the MCP
	// inputSchema.
	InputSchema json.RawMessage
	// OutputSchema is the JSON Schema of the structured result (tools
	// whose terminal states declare output) — the MCP outputSchema; nil
	// when the tool has none.
	OutputSchema json.RawMessage
	// PromptArguments describe a prompt's arguments.
	PromptArguments []*mcp.PromptArgument
	// Resource describes a resource workflow's URI (Kind resource).
	Resource    *ResourceInfo
	Destructive bool
	// Requires lists client capabilities needed on every round.
	Requires []vocab.Capability
	// NonInteractive programs accept every answer up front in the "inputs"
	// argument.
	NonInteractive bool
	TTL            time.Duration
	Storage        vocab.Storage
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
	// Task, when set, makes the tool long-running: it runs as a task of
	// the MCP Tasks extension from state Task.Start on (nil: never).
	Task *TaskInfo
}

// TaskInfo is how a long-running tool runs as a task (spec: task).
type TaskInfo struct {
	// Required: only as a task (a client without the extension, or on a
	// protocol older than 2026-07-28, gets -32021); otherwise as a task
	// when a 2026-07-28 client declared the extension and in its rounds
	// otherwise.
	Required bool
	// Start is the state the task starts at; the rounds before it are MRTR
	// rounds of tools/call.
	Start uint16
	// Timeout bounds the task's run (0: none); PollInterval is what the
	// client is told to poll at and TTL how long the task stays readable
	// after its last update (0: the tasks manager's defaults).
	Timeout, PollInterval, TTL time.Duration
}

// State returns the description of state s, or nil.
func (d *Descriptor) State(s uint16) *StateInfo {
	if s == 0 || int(s) > len(d.States) {
		return nil
	}
	return &d.States[s-1]
}

// StateNamed returns the number and description of the state called name,
// or 0 and nil: tokens name the state they wait in, and numbers are for
// one build only.
func (d *Descriptor) StateNamed(name string) (uint16, *StateInfo) {
	for i := range d.States {
		if d.States[i].Name == name {
			return uint16(i + 1), &d.States[i]
		}
	}
	return 0, nil
}

// Subject is how tokens and records name the program: "tools/call:<name>".
func (d *Descriptor) Subject() string {
	switch d.Kind {
	case vocab.KindPrompt:
		return seal.PromptSubject(d.Name)
	case vocab.KindResource:
		return seal.ResourceSubject(d.Name)
	}
	return seal.ToolSubject(d.Name)
}

// Request finds the request with key (a key is one request of a program;
// a question several states ask is the same request in each of them).
func (d *Descriptor) Request(key string) *RequestInfo {
	for i := range d.States {
		if j := d.States[i].RequestIndex(key); j >= 0 {
			return &d.States[i].Requests[j]
		}
	}
	return nil
}

// RequestOrder returns the keys of reqs in the order the program lists its
// requests (states in number order, requests in spec order); keys it does
// not know come last, sorted.
func (d *Descriptor) RequestOrder(reqs mcp.InputRequestMap) []string {
	keys := make([]string, 0, len(reqs))
	for i := range d.States {
		for _, q := range d.States[i].Requests {
			// A question several states ask is listed once, where it is
			// first asked.
			if _, ok := reqs[q.Key]; ok && !slices.Contains(keys, q.Key) {
				keys = append(keys, q.Key)
			}
		}
	}
	var rest []string
	for k := range reqs {
		if d.Request(k) == nil {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(keys, rest...)
}

// Graph is the state machine of the transition table, state number n of
// the descriptor being n-1 in the graph (mrtrtest's walks, the runtime's
// capabilities every way needs).
func (d *Descriptor) Graph() *machine.Graph {
	names := make([]string, len(d.States))
	for i, s := range d.States {
		names[i] = s.Name
	}
	initial := ""
	if s := d.State(d.Initial); s != nil {
		initial = s.Name
	}
	g := machine.New(names, initial)
	for _, tr := range d.Transitions {
		if d.State(tr.From) != nil {
			if to := d.State(tr.To); to != nil {
				g.Connect(int(tr.From)-1, to.Name, tr.On)
			}
		}
	}
	return g
}

// Allows reports whether the transition table has from → to along edge on.
func (d *Descriptor) Allows(from, to uint16, on vocab.Edge) bool {
	for _, t := range d.Transitions {
		if t.From == from && t.To == to && t.On == on {
			return true
		}
	}
	return false
}

// StateInfo describes one state.
type StateInfo struct {
	Name     string
	Kind     vocab.StateKind
	Requests []RequestInfo // ask and confirm states
	// Check names the handler check of a check state, and Outcomes its
	// outcomes, if any, sorted by name: generated code numbers them from 1
	// in this order.
	Check    string
	Outcomes []string
	// AskAgain is the ask a check state's refusals (mrtr.AskAgain) go back
	// to, MaxAttempts how many answers the check may see in all ("" and 0
	// for a check that cannot ask again). A typed confirmation has
	// MaxAttempts too: the texts it takes, the last mismatch declining. On
	// an ask state, MaxAttempts is how many answers its validators with
	// context may refuse in all (maxAttempts; then its Exhausted
	// transition), 0 when unbounded.
	AskAgain    string
	MaxAttempts int
	// FlowValidators, on an ask state, names the validators with context
	// (reads:) its forms call, one entry per use.
	FlowValidators []string
	// Branch is the value a branch state routes on, as the spec names it
	// ("refund.amount"); its arms are its transitions.
	Branch string
	// End is how a terminal state ends the workflow.
	End vocab.Outcome
	// Output is set on a terminal state that declares output: its result
	// carries the structured result its handler method filled.
	Output bool
	// OperationID is the template of an effect state's operation id when it
	// is not the workflow's own ("refund-{orderId}"): the effect runs once
	// per id, and later visits replay it.
	OperationID string
	// BusinessKey is set when OperationID is made only of what the caller
	// sends, arguments and answers: a second workflow sent the same shares
	// the operation, and is refused instead of performing the effect again.
	// (An id using the workflow id or continuation fields may differ.)
	BusinessKey bool
	// Approval is set on a confirmation gate with an approval policy: the
	// engine needs Config.Approvals to serve the program.
	Approval bool
}

// RequestIndex returns the index of the request with key in s.Requests, or -1.
func (s *StateInfo) RequestIndex(key string) int {
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
	Kind     vocab.RequestKind
	Optional bool
	// GateField is the boolean field of a confirmation gate's form ("" for
	// asks), or its string field when Typed.
	GateField string
	// Typed marks a typed confirmation: the user types the text its form's
	// field title shows (TypedWant) to go on.
	Typed bool
	// Sensitive lists the form fields that are never sent back as the
	// defaults of a form asked again.
	Sensitive []string
}

// Transition is one edge of the state machine.
type Transition struct {
	From, To uint16
	On       vocab.Edge
}
