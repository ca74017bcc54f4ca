// Package vocab is the one vocabulary of mrtrgen: the kinds of workflows,
// states, input requests, storage modes, outcomes and transition edges. The
// spec loader, lint, the generator and the runtime all use these values, so a
// word means the same thing, and is spelled the same way, from a YAML spec to
// the wire.
//
// The package is a leaf (it imports only the standard library). Every type
// has String (the word a spec, a diagram or a log uses) and GoName (the name
// of its constant here, which generated code refers to).
package vocab

import "strings"

// Kind says which MCP method a workflow answers.
type Kind uint8

const (
	KindTool     Kind = iota + 1 // tools/call
	KindPrompt                   // prompts/get
	KindResource                 // resources/read
)

// The MCP methods a workflow answers.
const (
	MethodToolsCall     = "tools/call"
	MethodPromptsGet    = "prompts/get"
	MethodResourcesRead = "resources/read"
)

func (k Kind) String() string {
	switch k {
	case KindPrompt:
		return "prompt"
	case KindResource:
		return "resource"
	}
	return "tool"
}

// Method is the MCP method the workflow answers.
func (k Kind) Method() string {
	switch k {
	case KindPrompt:
		return MethodPromptsGet
	case KindResource:
		return MethodResourcesRead
	}
	return MethodToolsCall
}

// GoName is the name of k's constant in this package.
func (k Kind) GoName() string {
	switch k {
	case KindPrompt:
		return "KindPrompt"
	case KindResource:
		return "KindResource"
	}
	return "KindTool"
}

// StateKind says what happens in a state.
type StateKind uint8

const (
	// StateCheck runs a named business check (may fail, may branch).
	StateCheck StateKind = iota + 1
	// StateAsk sends one or more input requests in one round.
	StateAsk
	// StateConfirm is a confirmation gate: a yes/no elicitation that must be
	// accepted before the workflow goes on.
	StateConfirm
	// StateEffect performs a named side effect, once per operation id.
	StateEffect
	// StateTerminal ends the workflow with a result.
	StateTerminal
	// StateBranch routes on a value (an argument, a continuation field or
	// a form field of an answer) with no handler method: one arm per enum
	// or boolean value, or per range of a number, and a default.
	StateBranch
)

var stateKindNames = [...]string{"", "check", "ask", "confirm", "effect", "terminal", "branch"}

func (k StateKind) String() string {
	if int(k) < len(stateKindNames) && k > 0 {
		return stateKindNames[k]
	}
	return "unknown"
}

// GoName is the name of k's constant in this package.
func (k StateKind) GoName() string {
	s := k.String()
	return "State" + strings.ToUpper(s[:1]) + s[1:]
}

// Interactive reports whether states of this kind send input requests (a
// round may end in them, waiting for answers).
func (k StateKind) Interactive() bool { return k == StateAsk || k == StateConfirm }

// RequestKind is the MCP method of an input request.
type RequestKind uint8

const (
	Elicit RequestKind = iota + 1 // elicitation/create (form mode)
	Sample                        // sampling/createMessage
	Roots                         // roots/list
	// ElicitURL is elicitation/create in URL mode (mode "url", MCP
	// 2026-07-28): the client shows a message and opens a URL where the
	// user completes a step that must not pass through the client (an
	// OAuth consent, entering a card). The answer carries no content, and
	// "accept" does not mean the step was completed.
	ElicitURL
)

// String is the request's kind as spec keys name it.
func (k RequestKind) String() string {
	switch k {
	case Sample:
		return "sample"
	case Roots:
		return "roots"
	case ElicitURL:
		return "elicitUrl"
	}
	return "elicit"
}

// GoName is the name of k's constant in this package.
func (k RequestKind) GoName() string {
	switch k {
	case Sample:
		return "Sample"
	case Roots:
		return "Roots"
	case ElicitURL:
		return "ElicitURL"
	}
	return "Elicit"
}

// Method is the MCP method name of the request.
func (k RequestKind) Method() string {
	switch k {
	case Sample:
		return "sampling/createMessage"
	case Roots:
		return "roots/list"
	}
	return "elicitation/create"
}

// Capability is the client capability the request needs.
func (k RequestKind) Capability() Capability {
	switch k {
	case Sample:
		return CapSampling
	case Roots:
		return CapRoots
	case ElicitURL:
		return CapElicitationURL
	}
	return CapElicitation
}

// Elicitation reports whether requests of this kind are elicitations (a
// form or a URL): the user may decline or cancel them.
func (k RequestKind) Elicitation() bool { return k == Elicit || k == ElicitURL }

// Capability is a client capability an input request needs.
type Capability string

const (
	CapElicitation Capability = "elicitation"
	CapSampling    Capability = "sampling"
	CapRoots       Capability = "roots"
	// CapElicitationURL is the url mode of elicitation: a client declares
	// it as elicitation: {url: {}}. A bare elicitation: {} means form only.
	CapElicitationURL Capability = "elicitation.url"
)

// Storage says where a workflow's continuation lives between rounds.
type Storage uint8

const (
	// Sealed: the continuation travels inside requestState, encrypted and
	// authenticated.
	Sealed Storage = iota + 1
	// Reference: requestState seals only a random reference; the data stays
	// in the server-side store, bound to principal, tool and workflow.
	Reference
)

func (s Storage) String() string {
	if s == Reference {
		return "reference"
	}
	return "sealed"
}

// GoName is the name of s's constant in this package.
func (s Storage) GoName() string {
	if s == Reference {
		return "Reference"
	}
	return "Sealed"
}

// Outcome is how a workflow ended. A terminal state of a spec declares one
// of success, cancelled, failed and expired (Declarable); the runtime adds
// the others.
type Outcome string

const (
	OutcomeSuccess   Outcome = "success"
	OutcomeCancelled Outcome = "cancelled" // the user declined or cancelled
	OutcomeFailed    Outcome = "failed"    // a terminal state of outcome failed
	// The runtime's own endings.
	OutcomeRejected     Outcome = "rejected"     // a check or effect rejected the request
	OutcomeUnauthorized Outcome = "unauthorized" // Authorize refused
	OutcomeError        Outcome = "error"        // a dependency failed
	// OutcomeInvalidArguments: the arguments failed validation; the result
	// names each problem so the caller (often a model) can correct them.
	// Prompts turn it into JSON-RPC error -32602.
	OutcomeInvalidArguments Outcome = "invalid_arguments"
	// OutcomeExpired: an approval's deadline passed before it was
	// approved (docs/approvals.md); distinct from a decline.
	OutcomeExpired Outcome = "expired"
	// OutcomePending: the workflow handed its action to an approval that
	// is still pending, for a client that cannot be asked to wait; calling
	// the tool again with the same arguments goes on from it.
	OutcomePending Outcome = "pending"
)

func (o Outcome) String() string { return string(o) }

// Declarable reports whether a terminal state of a spec may end with o.
func (o Outcome) Declarable() bool {
	return o == OutcomeSuccess || o == OutcomeCancelled || o == OutcomeFailed || o == OutcomeExpired
}

// GoName is the name of o's constant in this package.
func (o Outcome) GoName() string {
	var b strings.Builder
	b.WriteString("Outcome")
	for part := range strings.SplitSeq(string(o), "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// Edge says why the state machine moves from one state to the next: the
// state is done (Next), a check chose an outcome, the user declined or
// cancelled an input request, a value branch took one of its arms, or a
// check sent the workflow back to an ask.
type Edge string

const (
	Next    Edge = "next"
	Decline Edge = "decline"
	Cancel  Edge = "cancel"
	// Default is a value branch's arm for every value no other arm takes
	// (and for an absent value).
	Default Edge = "default"
	// AskAgain is the edge a check takes back to an earlier ask when it
	// refuses the answer with a message for the user (mrtr.AskAgain).
	AskAgain Edge = "askAgain"
	// Exhausted is the edge a check takes instead of AskAgain once the
	// ask's attempts are used up.
	Exhausted Edge = "exhausted"
	// Expire is the edge an approval gate takes when the approval's
	// deadline passed before it was approved.
	Expire Edge = "expire"
)

const (
	outcomePrefix = "outcome:"
	casePrefix    = "case:"
)

// OutcomeEdge is the edge a check takes when it chooses outcome name.
func OutcomeEdge(name string) Edge { return Edge(outcomePrefix + name) }

// Outcome returns the check outcome an edge stands for, if it is one.
func (e Edge) Outcome() (string, bool) {
	return strings.CutPrefix(string(e), outcomePrefix)
}

// CaseEdge is the edge a value branch takes by its arm labelled label: an
// enum or boolean value ("canary", "true"), or a range of a number
// ("above 500", "above 100 and at most 500").
func CaseEdge(label string) Edge { return Edge(casePrefix + label) }

// Case returns the label of the value branch arm an edge stands for, if it
// is one.
func (e Edge) Case() (string, bool) {
	return strings.CutPrefix(string(e), casePrefix)
}

// Leaves reports whether the edge leaves because the user declined or
// cancelled.
func (e Edge) Leaves() bool { return e == Decline || e == Cancel || e == Expire }

// Label is how a diagram or a test name shows the edge: the outcome's name,
// the arm's label, or the edge itself.
func (e Edge) Label() string {
	if o, ok := e.Outcome(); ok {
		return o
	}
	if c, ok := e.Case(); ok {
		return c
	}
	return string(e)
}

func (e Edge) String() string { return string(e) }

// GoName is the name of e's constant in this package ("" for an outcome's
// or an arm's edge, which OutcomeEdge and CaseEdge make).
func (e Edge) GoName() string {
	switch e {
	case Next:
		return "Next"
	case Decline:
		return "Decline"
	case Cancel:
		return "Cancel"
	case Default:
		return "Default"
	case AskAgain:
		return "AskAgain"
	case Exhausted:
		return "Exhausted"
	case Expire:
		return "Expire"
	}
	return ""
}

// GoName is the name of c's constant in this package.
func (c Capability) GoName() string {
	switch c {
	case "":
		return ""
	case CapElicitationURL:
		return "CapElicitationURL"
	}
	return "Cap" + strings.ToUpper(string(c[:1])) + string(c[1:])
}
