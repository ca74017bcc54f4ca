package generator

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// names derives every Go identifier the generated code of one workflow
// uses, from its spec names, in one place, so the files agree and reviewers
// can predict them: close_support_ticket → CloseSupportTicketFlow,
// CloseSupportTicketHandler, CloseSupportTicketStateAskReason, ...
type names struct {
	t    *spec.Tool
	base string // CloseSupportTicket
	low  string // closeSupportTicket
}

func newNames(t *spec.Tool) names {
	return names{t: t, base: spec.GoName(t.Name), low: lowerName(t.Name)}
}

func (n names) state() string               { return n.base + "State" }
func (n names) stateConst(s string) string  { return n.base + "State" + spec.GoName(s) }
func (n names) args() string                { return n.base + "Args" }
func (n names) continuation() string        { return n.base + "Continuation" }
func (n names) flow() string                { return n.base + "Flow" }
func (n names) handler() string             { return n.base + "Handler" }
func (n names) answer(key string) string    { return n.base + spec.GoName(key) + "Answer" }
func (n names) enum(field string) string    { return n.base + spec.GoName(field) }
func (n names) outcome(check string) string { return n.base + spec.GoName(check) + "Outcome" }
func (n names) outcomeConst(check, outcome string) string {
	return n.base + spec.GoName(check) + spec.GoName(outcome)
}
func (n names) register() string { return "Register" + n.base }
func (n names) newProgram() string {
	return "New" + n.base + "Program"
}

// Unexported names of the program and its helpers.
func (n names) lower() string      { return n.low }
func (n names) program() string    { return n.lower() + "Program" }
func (n names) descriptor() string { return n.lower() + "Descriptor" }
func (n names) helper(parts ...string) string {
	var b strings.Builder
	b.WriteString(n.lower())
	for _, p := range parts {
		b.WriteString(spec.GoName(p))
	}
	return b.String()
}

// method is the handler method of a check, effect or validator.
func method(name string) string { return spec.GoName(name) }

// field is the Go field name of a spec field or request key.
func field(name string) string { return spec.GoName(name) }

// fileBase is the file name stem of a workflow: its MCP name with anything
// but letters, digits and underscores replaced, lower-cased.
func fileBase(t *spec.Tool) string {
	var b strings.Builder
	for _, r := range strings.ToLower(t.Name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	switch t.Kind {
	case vocab.KindPrompt:
		return "prompt_" + b.String()
	case vocab.KindResource:
		return "resource_" + b.String()
	}
	return b.String()
}

// lowerName is the unexported Go name of a spec name: spec.GoNameLower,
// with an x in front when the name does not start with a letter (an MCP
// name may: "2fa-setup" is x2faSetup, as its exported name is X2faSetup).
func lowerName(s string) string {
	name := spec.GoNameLower(s)
	if r, _ := utf8.DecodeRuneInString(name); !unicode.IsLetter(r) {
		return "x" + name
	}
	return name
}
