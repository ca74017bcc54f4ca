// Package diagram draws the state machine of a multi-round tool or prompt
// for code review: every state with its kind, every transition with why it
// is taken, and the exits the spec does not spell out but the runtime
// takes (an ask or gate the user declines or cancels without onDecline or
// onCancel ends as cancelled; a check or effect can refuse or fail).
//
// Build turns a workflow into a Graph; Mermaid renders it as a Mermaid
// stateDiagram-v2 (GitHub renders it in Markdown), DOT as Graphviz. The
// output is deterministic: states in the model's order (a breadth-first
// walk from the initial state, then unreachable states by name),
// transitions in each state's fixed order, so a change to a spec shows as
// a small diff of its diagram.
package diagram

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Formats lists the output formats Render accepts.
var Formats = []string{"mermaid", "dot"}

// NodeKind says what a node of a Graph stands for.
type NodeKind int

const (
	// Start is the pseudo-state before the initial state.
	Start NodeKind = iota + 1
	// State is a state of the spec.
	State
	// Exit is an implicit end the runtime takes without a terminal state
	// in the spec: "cancelled" (declined or cancelled ask or gate),
	// "expired" (an approval's deadline passed, without onExpire) or
	// "rejected" (a check or effect refused or failed).
	Exit
	// End is the pseudo-state after every terminal state and exit.
	End
)

// Implicit exits.
const (
	ExitCancelled = "cancelled"
	ExitRejected  = "rejected"
	// ExitExpired: an approval gate without onExpire whose deadline
	// passed ends the workflow with outcome expired.
	ExitExpired = "expired"
)

// Node is one box of the diagram.
type Node struct {
	// ID is unique in the graph and safe as a Mermaid and DOT identifier:
	// "s_<state>" for states, "x_<exit>" for exits.
	ID   string
	Kind NodeKind
	// Name is the state's name, or the exit's outcome ("cancelled",
	// "rejected or error").
	Name string
	// State is the spec state (nil unless Kind is State).
	State *spec.State
	// Lines describe the node under its name: its kind and what it does.
	Lines []string
	// Class is the node's style: check, ask, confirm, effect,
	// irreversible, branch, success, cancelled, failed, or exit.
	Class string
}

// Edge is one arrow. Transitions between the same two nodes are merged
// into one edge with several labels.
type Edge struct {
	From, To string // node IDs
	Labels   []string
	// Implicit marks an edge the spec does not write down.
	Implicit bool
}

// Label is the edge's labels joined for display.
func (e *Edge) Label() string { return strings.Join(e.Labels, ", ") }

// Graph is the drawable state machine of one workflow.
type Graph struct {
	Kind  vocab.Kind
	Name  string // MCP name of the tool or prompt
	Nodes []*Node
	Edges []*Edge
}

// Node returns the node with the given ID, or nil.
func (g *Graph) Node(id string) *Node {
	for _, n := range g.Nodes {
		if n.ID == id {
			return n
		}
	}
	return nil
}

const (
	startID = "start"
	endID   = "end"
)

func stateID(name string) string { return "s_" + name }
func exitID(name string) string  { return "x_" + name }

// Edge labels.
const (
	LabelNext      = "next"
	LabelAnswered  = "answered"
	LabelConfirmed = "confirmed"
	LabelApproved  = "approved"
	LabelExpired   = "deadline passed"
	LabelDeclined  = "declined"
	LabelCancelled = "cancelled"
	LabelRejected  = "rejected / error"
	LabelDefault   = "default"
	// LabelAskAgain is a check's askAgain edge; LabelExhausted its
	// exhausted edge.
	LabelAskAgain  = "asked again"
	LabelExhausted = "attempts used up"
)

// Build returns the graph of a loaded workflow.
func Build(t *spec.Tool) *Graph {
	g := &Graph{Kind: t.Kind, Name: t.Name}
	g.Nodes = append(g.Nodes, &Node{ID: startID, Kind: Start, Name: "start"})
	for _, s := range t.States {
		g.Nodes = append(g.Nodes, stateNode(s))
	}
	var edges []*Edge
	add := func(from, to, label string, implicit bool) {
		for _, e := range edges {
			if e.From == from && e.To == to && e.Implicit == implicit {
				if label != "" {
					e.Labels = append(e.Labels, label)
				}
				return
			}
		}
		e := &Edge{From: from, To: to, Implicit: implicit}
		if label != "" {
			e.Labels = []string{label}
		}
		edges = append(edges, e)
	}
	add(startID, stateID(t.Initial), "", false)
	usedExit := map[string]bool{}
	for _, s := range t.States {
		from := stateID(s.Name)
		for _, e := range s.Edges() {
			add(from, stateID(e.To), edgeLabel(s, e), false)
		}
		switch s.Kind {
		case vocab.StateAsk, vocab.StateConfirm:
			if s.OnDecline == nil {
				add(from, exitID(ExitCancelled), LabelDeclined, true)
				usedExit[ExitCancelled] = true
			}
			if s.OnCancel == nil {
				add(from, exitID(ExitCancelled), LabelCancelled, true)
				usedExit[ExitCancelled] = true
			}
			if s.Approval() != nil && s.OnExpire == nil {
				add(from, exitID(ExitExpired), LabelExpired, true)
				usedExit[ExitExpired] = true
			}
		case vocab.StateCheck, vocab.StateEffect:
			add(from, exitID(ExitRejected), LabelRejected, true)
			usedExit[ExitRejected] = true
		case vocab.StateTerminal:
			add(from, endID, "", false)
		}
	}
	if usedExit[ExitCancelled] {
		g.Nodes = append(g.Nodes, &Node{ID: exitID(ExitCancelled), Kind: Exit, Name: "cancelled",
			Lines: []string{"implicit end"}, Class: "exit"})
		add(exitID(ExitCancelled), endID, "", true)
	}
	if usedExit[ExitExpired] {
		g.Nodes = append(g.Nodes, &Node{ID: exitID(ExitExpired), Kind: Exit, Name: "expired",
			Lines: []string{"implicit end"}, Class: "exit"})
		add(exitID(ExitExpired), endID, "", true)
	}
	if usedExit[ExitRejected] {
		g.Nodes = append(g.Nodes, &Node{ID: exitID(ExitRejected), Kind: Exit, Name: "rejected or error",
			Lines: []string{"implicit end"}, Class: "exit"})
		add(exitID(ExitRejected), endID, "", true)
	}
	g.Nodes = append(g.Nodes, &Node{ID: endID, Kind: End, Name: "end"})
	g.Edges = edges
	return g
}

func stateNode(s *spec.State) *Node {
	n := &Node{ID: stateID(s.Name), Kind: State, Name: s.Name, State: s, Class: s.Kind.String()}
	switch s.Kind {
	case vocab.StateCheck:
		n.Lines = []string{"check " + s.Check.Name}
	case vocab.StateAsk:
		for _, q := range s.Requests {
			what := requestWhat(q.Kind)
			if q.Optional {
				what += ", optional"
			}
			n.Lines = append(n.Lines, fmt.Sprintf("ask %s (%s)", q.Key, what))
		}
	case vocab.StateConfirm:
		n.Lines = []string{"confirmation gate"}
		if g := s.Confirm; g != nil && g.Typed != nil {
			n.Lines = []string{"typed confirmation", fmt.Sprintf("type %s (%d tries)", g.Typed.Raw, g.MaxAttempts)}
		}
		if a := s.Approval(); a != nil {
			n.Lines = []string{"approval gate", fmt.Sprintf("%d of %s", a.Count, a.Who()), "requester " + a.Requester, "deadline " + spec.DurationText(a.Deadline)}
			n.Class = "approval"
		}
	case vocab.StateEffect:
		n.Lines = []string{"effect " + s.Effect.Name}
		if s.Irreversible {
			n.Lines = append(n.Lines, "IRREVERSIBLE")
			n.Class = "irreversible"
		}
	case vocab.StateBranch:
		n.Lines = []string{"branch on " + s.Branch.On.Name()}
	case vocab.StateTerminal:
		n.Lines = []string{"terminal, outcome " + s.Outcome.String()}
		if s.NotFound {
			n.Lines[0] += ", resource not found"
		}
		n.Class = s.Outcome.String()
	}
	if a := s.AskAgain; a != nil {
		n.Lines = append(n.Lines, fmt.Sprintf("may ask %s again, %d answers in all", a.State.Name, a.MaxAttempts))
	}
	if s.Kind == vocab.StateAsk && s.OnExhausted != nil {
		n.Lines = append(n.Lines, fmt.Sprintf("validators may refuse, %d answers in all", s.MaxAttempts))
	}
	return n
}

// requestWhat names what an input request asks for, in a word.
func requestWhat(k vocab.RequestKind) string {
	switch k {
	case vocab.Sample:
		return "sampling"
	case vocab.Roots:
		return "roots"
	case vocab.ElicitURL:
		return "URL"
	}
	return "form"
}

func edgeLabel(s *spec.State, e spec.Edge) string {
	switch {
	case e.On == vocab.Next && s.Kind == vocab.StateAsk:
		return LabelAnswered
	case e.On == vocab.Next && s.Approval() != nil:
		return LabelApproved
	case e.On == vocab.Next && s.Kind == vocab.StateConfirm:
		return LabelConfirmed
	case e.On == vocab.Expire:
		return LabelExpired
	case e.On == vocab.Next:
		return LabelNext
	case e.On == vocab.Decline:
		return LabelDeclined
	case e.On == vocab.Cancel:
		return LabelCancelled
	case e.On == vocab.AskAgain:
		return LabelAskAgain
	case e.On == vocab.Exhausted:
		return LabelExhausted
	}
	return e.On.Label() // an outcome's name, an arm ("above 500", "gold") or default
}

// Render writes the diagram of each workflow in format (one of Formats).
// Several Mermaid diagrams are separated by a blank line and each opens
// with a %% comment naming its workflow and spec file (a Mermaid renderer
// takes one diagram at a time); several DOT graphs follow each other, which
// Graphviz reads as one input.
func Render(w io.Writer, format string, ts []*spec.Tool) error {
	var render func(*Graph) string
	switch format {
	case "mermaid":
		render = func(g *Graph) string { return g.Mermaid() }
	case "dot":
		render = func(g *Graph) string { return g.DOT() }
	default:
		return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
	}
	for i, t := range ts {
		var b strings.Builder
		if i > 0 {
			b.WriteString("\n")
		}
		if format == "mermaid" && len(ts) > 1 {
			fmt.Fprintf(&b, "%%%% %s %s", t.Kind, t.Name)
			if t.Pos.File != "" {
				fmt.Fprintf(&b, " (%s)", filepath.ToSlash(t.Pos.File))
			}
			b.WriteString("\n")
		}
		b.WriteString(render(Build(t)))
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}
