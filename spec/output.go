package spec

import (
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// Structured output: a tool's success or cancelled terminal state may
// declare output fields, in the field language of arguments. A handler
// method of that state fills them; the generated code checks them against
// the spec and sends them as the result's structuredContent (with the
// state's message as its text content), and the tool's outputSchema
// describes them.
//
// A tool has one outputSchema: its properties are the output fields of
// every terminal state (a name declared in several states has one
// definition, lint's output-field-conflict), and a field is required by
// the schema when every non-error end of the tool requires it (a terminal
// state without output, and an ask or gate without onDecline or onCancel,
// which ends the workflow as cancelled by itself, send an empty object). Each state's generated check
// still insists on the fields that state requires.

// A workflow may name, with onDecline and onCancel of its own, the
// terminal state every ask and gate without its own onDecline or onCancel
// goes to: the end that did nothing, with its structured output, written
// once instead of on each ask and gate. A state's own key wins. The
// decoder copies the workflow's reference into those states (marked
// Default), so that everything downstream (the graph, lint, the
// generator, its tests and page, breaking) sees ordinary edges; a
// workflow without them keeps its asks and gates ending the workflow as
// cancelled by themselves.

// applyEndDefaults checks the workflow's onDecline and onCancel and copies
// them into its asks and gates that name none.
func (d *decoder) applyEndDefaults(t *Tool, states []*State) {
	var names []string
	byName := map[string]*State{}
	for _, s := range states {
		names = append(names, s.Name)
		byName[s.Name] = s
	}
	interactive := func(s *State) bool { return s.Kind == vocab.StateAsk || s.Kind == vocab.StateConfirm }
	approval := func(s *State) bool { return s.Approval() != nil }
	for _, def := range []struct {
		key, what string
		ref       **StateRef
		on        func(*State) **StateRef
		applies   func(*State) bool
	}{
		{"onDecline", "asks and gates", &t.OnDecline, func(s *State) **StateRef { return &s.OnDecline }, interactive},
		{"onCancel", "asks and gates", &t.OnCancel, func(s *State) **StateRef { return &s.OnCancel }, interactive},
		{"onExpire", "approval gates", &t.OnExpire, func(s *State) **StateRef { return &s.OnExpire }, approval},
	} {
		ref := *def.ref
		if ref == nil {
			continue
		}
		target := byName[ref.Name]
		switch {
		case target == nil:
			d.diagAt(ref.Pos, "unknown-reference", suggest(ref.Name, sortedCopy(names), "declared states"),
				"%s %q: %s names state %q, which is not declared", d.kind, t.Name, def.key, ref.Name)
			*def.ref = nil
			continue
		case target.Kind != vocab.StateTerminal:
			d.diagAt(ref.Pos, "state", "name a terminal state (terminal: cancelled, with the output of an end that did nothing); a state's own "+def.key+" can go anywhere",
				"%s %q: the workflow's %s must name a terminal state, and %s is %s %s state", d.kind, t.Name, def.key, ref.Name, article(target.Kind.String()), target.Kind)
			*def.ref = nil
			continue
		case !slices.ContainsFunc(states, def.applies):
			d.diagAt(ref.Pos, "state", "drop "+def.key+": it is where "+def.what+" go", "%s %q: %s applies to %s, and this %s has none", d.kind, t.Name, def.key, def.what, d.kind)
			continue
		}
		for _, s := range states {
			if !def.applies(s) {
				continue
			}
			if at := def.on(s); *at == nil {
				*at = &StateRef{Name: ref.Name, Pos: ref.Pos, Default: true}
			}
		}
	}
}

// checkOutputKeys reports an output on a state that cannot have one.
func (d *decoder) checkOutputKeys(s *State, keys map[string]*yaml.Node) {
	k := keys["output"]
	if k == nil {
		return
	}
	switch {
	case d.kind == vocab.KindPrompt:
		d.errorf(k, "state", "a prompt's result is its messages", "state %q: output is for tools", s.Name)
	case d.kind == vocab.KindResource:
		d.errorf(k, "state", "a resource's result is its contents", "state %q: output is for tools", s.Name)
	case s.Outcome == vocab.OutcomeFailed:
		d.errorf(k, "state", "declare output on a success or cancelled terminal state; a failed one is an error result, which clients do not check against the outputSchema", "state %q: output does not apply to a failed terminal state", s.Name)
	case len(s.Output) == 0:
		d.errorf(k, "state", "add at least one field, or drop output", "state %q: output declares no fields", s.Name)
	}
}

// HasOutput reports whether a terminal state of the tool declares output:
// the tool then has an outputSchema.
func (t *Tool) HasOutput() bool {
	return slices.ContainsFunc(t.States, func(s *State) bool { return len(s.Output) > 0 })
}

// OutputStates lists the terminal states that declare output, in state
// order.
func (t *Tool) OutputStates() []*State {
	var out []*State
	for _, s := range t.States {
		if len(s.Output) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// OutputField is one property of a tool's outputSchema.
type OutputField struct {
	*Field // the first declaration, in state order
	// SchemaRequired: every non-error terminal state of the tool requires
	// it, so the outputSchema does.
	SchemaRequired bool
}

// OutputFields lists the properties of the tool's outputSchema, sorted by
// name, or nil when no state declares output.
func (t *Tool) OutputFields() []OutputField {
	if !t.HasOutput() {
		return nil
	}
	var out []OutputField
	seen := map[string]bool{}
	for _, s := range t.OutputStates() {
		for _, f := range s.Output {
			if seen[f.Name] {
				continue
			}
			seen[f.Name] = true
			out = append(out, OutputField{Field: f, SchemaRequired: t.requiredEverywhere(f.Name)})
		}
	}
	slices.SortFunc(out, func(a, b OutputField) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out
}

// ImplicitEnds lists the asks and gates where declining or cancelling ends
// the workflow as cancelled without a terminal state (no onDecline or no
// onCancel), and the approval gates whose expiry ends it as expired (no
// onExpire): those results carry no output.
func (t *Tool) ImplicitEnds() []*State {
	var out []*State
	for _, s := range t.States {
		if s.Interactive() && (s.OnDecline == nil || s.OnCancel == nil || s.Approval() != nil && s.OnExpire == nil) {
			out = append(out, s)
		}
	}
	return out
}

// requiredEverywhere reports whether every non-error end of the tool
// requires output field name: every success or cancelled terminal state,
// and no ask or gate ends the workflow by itself.
func (t *Tool) requiredEverywhere(name string) bool {
	if len(t.ImplicitEnds()) > 0 {
		return false
	}
	for _, s := range t.States {
		if s.Kind != vocab.StateTerminal || s.Outcome == vocab.OutcomeFailed {
			continue
		}
		f := findField(s.Output, name)
		if f == nil || !f.Required {
			return false
		}
	}
	return true
}

// OutputField returns the state's output field named name, or nil.
func (s *State) OutputField(name string) *Field { return findField(s.Output, name) }

// SameShape reports whether two fields describe the same values: type and
// every constraint (not the title, description, example, required or
// position). Two output declarations of one name must have the same shape:
// the tool has one outputSchema and one Go output struct.
func SameShape(a, b *Field) bool {
	if a == nil || b == nil {
		return a == b
	}
	eqInt := func(x, y *int) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	eqNum := func(x, y *float64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	if a.Type != b.Type || a.Pattern != b.Pattern || a.Format != b.Format || a.UniqueItems != b.UniqueItems ||
		!eqInt(a.MinLength, b.MinLength) || !eqInt(a.MaxLength, b.MaxLength) || !eqInt(a.MinItems, b.MinItems) ||
		!eqInt(a.MaxItems, b.MaxItems) || !eqNum(a.Minimum, b.Minimum) || !eqNum(a.Maximum, b.Maximum) {
		return false
	}
	if !slices.EqualFunc(a.Values, b.Values, func(x, y EnumValue) bool { return x.Value == y.Value && x.Title == y.Title }) {
		return false
	}
	if (a.GoType == nil) != (b.GoType == nil) || a.GoType != nil && *a.GoType != (GoType{Path: b.GoType.Path, Name: b.GoType.Name, Pos: a.GoType.Pos}) {
		return false // one field of the Go output struct has one Go type
	}
	if (a.Items == nil) != (b.Items == nil) {
		return false
	}
	return a.Items == nil || SameShape(a.Items, b.Items)
}
