package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// Validators with context (reads:). A file-level validator names the
// values of the flow it reads; each workflow that uses it resolves those
// names against its own arguments, continuation fields and forms, so one
// validator can serve several tools that share the names it reads.

// ValidatorReads are the reads of one validator with context, resolved in
// one workflow.
type ValidatorReads struct {
	Validator string
	Reads     []ValueRef // in the validator's order
}

// ReadsOf returns the resolved reads of validator name in the workflow
// (nil when it uses no such validator, or its reads did not resolve).
func (t *Tool) ReadsOf(name string) []ValueRef {
	for _, vr := range t.ValidatorReads {
		if vr.Validator == name {
			return vr.Reads
		}
	}
	return nil
}

// FlowValidatorUse is one use of a validator with context: the form
// field it checks, in request Request of ask state State.
type FlowValidatorUse struct {
	Validator *Validator
	State     *State
	Request   *InputRequest
	Field     *Field
	Ref       NameRef // the entry of the field's validate list
}

// FlowValidatorUses lists the workflow's uses of validators with context,
// in state, request and field order (as written in validate lists).
func (t *Tool) FlowValidatorUses(f *File) []FlowValidatorUse {
	var out []FlowValidatorUse
	for _, s := range t.States {
		for _, q := range s.Requests {
			for _, fd := range q.Fields {
				for _, ref := range fd.Validate {
					if v := f.Validator(ref.Name); v != nil && v.InContext() {
						out = append(out, FlowValidatorUse{Validator: v, State: s, Request: q, Field: fd, Ref: ref})
					}
				}
			}
		}
	}
	return out
}

// UsesFlowValidators reports whether a form of state s uses a validator
// with context: its answers may be refused for reasons of the flow, which
// maxAttempts bounds.
func (s *State) UsesFlowValidators(f *File) bool {
	for _, q := range s.Requests {
		for _, fd := range q.Fields {
			for _, ref := range fd.Validate {
				if v := f.Validator(ref.Name); v != nil && v.InContext() {
					return true
				}
			}
		}
	}
	return false
}

// resolveValidatorReads resolves the reads of each validator with context
// the workflow uses, refuses such validators where there is no flow to
// read (arguments, list items), and checks the bound of the asks that use
// them.
func (r *resolver) resolveValidatorReads(t *Tool, keys map[string]*InputRequest) {
	inContext := func(ref NameRef) *Validator {
		if v := r.f.Validator(ref.Name); v != nil && v.InContext() {
			return v
		}
		return nil
	}
	for _, a := range t.Arguments {
		for _, fd := range []*Field{a, a.Items} {
			if fd == nil {
				continue
			}
			for _, ref := range fd.Validate {
				if inContext(ref) != nil {
					r.errorf(ref.Pos, "validator-type", "check the argument in the workflow's first check, or use a validator without reads:", "argument %q: validator %q reads the flow (reads:), which does not exist yet when arguments are decoded; validators with context check form fields", a.Name, ref.Name)
				}
			}
		}
	}
	for _, s := range t.States {
		for _, q := range s.Requests {
			for _, fd := range q.Fields {
				if fd.Items == nil {
					continue
				}
				for _, ref := range fd.Items.Validate {
					if inContext(ref) != nil {
						r.errorf(ref.Pos, "validator-type", "validate the list as a whole in the check after the ask", "form field %q: validator %q reads the flow (reads:); validators with context check one value, not the items of a list", fd.Name, ref.Name)
					}
				}
			}
		}
	}
	for _, u := range t.FlowValidatorUses(r.f) {
		if t.ReadsOf(u.Validator.Name) != nil {
			continue
		}
		var resolved []ValueRef
		ok := true
		for _, read := range u.Validator.Reads {
			ref, err := resolveRead(t, keys, read)
			if err != "" {
				ok = false
				r.errorf(read.Pos, "unknown-reference", "a validator reads an argument, a continuation field or a form field (askKey.field) of each workflow that uses it",
					"validator %q, used by form field %q of %s %q (%s): %s", u.Validator.Name, u.Field.Name, t.Kind, t.Name, u.Ref.Pos, err)
				continue
			}
			resolved = append(resolved, ref)
		}
		if !ok {
			continue
		}
		t.ValidatorReads = append(t.ValidatorReads, &ValidatorReads{Validator: u.Validator.Name, Reads: resolved})
		slices.SortFunc(t.ValidatorReads, func(a, b *ValidatorReads) int { return strings.Compare(a.Validator, b.Validator) })
	}
	for _, s := range t.States {
		if s.Kind != vocab.StateAsk || s.OnExhausted == nil {
			continue
		}
		if !s.UsesFlowValidators(r.f) {
			r.errorf(s.OnExhausted.Pos, "state", "drop maxAttempts and onExhausted, or validate a field with a validator that has reads:", "state %q: maxAttempts bounds the answers validators with context refuse, but no form field of this ask uses one", s.Name)
		}
	}
}

// resolveRead resolves one name a validator reads in workflow t; the error
// says why it does not resolve ("" when it does).
func resolveRead(t *Tool, keys map[string]*InputRequest, read ValueRef) (ValueRef, string) {
	ref := ValueRef{Path: read.Path, Pos: read.Pos}
	name := ref.Path[0]
	switch bindValueRef(t, keys, &ref) {
	case refNoSuchField:
		return ref, fmt.Sprintf("elicitation %q has no field %q", name, ref.Path[1])
	case refNotAField:
		return ref, fmt.Sprintf("%q is the answer of a %s request; a validator reads a form field (key.field), an argument or a continuation field", ref.Name(), keys[name].Kind.Method())
	case refUndeclared:
		return ref, fmt.Sprintf("%q names no argument, continuation field or form field", ref.Name())
	}
	return ref, ""
}

// refBinding is how bindValueRef resolved a reference, or why it did not.
type refBinding int

const (
	refBound       refBinding = iota
	refNoSuchField            // askKey.field of an elicitation without that field
	refNotAField              // the whole answer of a request, not one of its form fields
	refUndeclared             // no argument, continuation field or input request
)

// bindValueRef resolves ref, which names an argument, a continuation field
// or a form field (askKey.field) of workflow t, by setting its Kind and
// Field; keys are t's input requests by key. It leaves ref unresolved,
// and says why, when ref names anything else.
func bindValueRef(t *Tool, keys map[string]*InputRequest, ref *ValueRef) refBinding {
	name := ref.Path[0]
	switch {
	case len(ref.Path) == 1 && t.Argument(name) != nil:
		ref.Kind, ref.Field = RefArgument, t.Argument(name)
	case len(ref.Path) == 1 && t.Continuation.Field(name) != nil:
		ref.Kind, ref.Field = RefContinuation, t.Continuation.Field(name)
	case len(ref.Path) == 2 && keys[name] != nil && keys[name].Kind == vocab.Elicit:
		if ref.Field = keys[name].Field(ref.Path[1]); ref.Field == nil {
			return refNoSuchField
		}
		ref.Kind = RefFormField
	case keys[name] != nil:
		return refNotAField
	default:
		return refUndeclared
	}
	return refBound
}

// CountsRefusals reports whether the workflow counts the answers state s
// refused, in the continuation's refusals group: a check with askAgain, a
// typed confirmation, or an ask bounding its validators with context
// (maxAttempts).
func (s *State) CountsRefusals() bool { return s.RefusalLimit() > 0 }
