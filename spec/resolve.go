package spec

import (
	"fmt"
	"math"
	"slices"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// resolver checks that every name a spec uses is declared: states,
// validators, and the placeholders of templates. Unresolved names are
// errors, reported at the place they are used.
type resolver struct {
	f     *File
	diags Diagnostics
}

func (r *resolver) errorf(at Pos, rule, hint, format string, args ...any) {
	r.diags = append(r.diags, Diagnostic{Pos: at, Severity: Error, Rule: rule, Message: fmt.Sprintf(format, args...), Hint: hint})
}

func (r *resolver) resolveFile() {
	for _, t := range r.f.Workflows() {
		r.resolveWorkflow(t)
	}
}

// resolveWorkflow checks the names of one workflow, in this order: the
// states it goes to, its arguments, the keys of its input requests and
// gates, the targets of its branches and askAgains, its validators and
// templates, and then the names its options, sets, validator reads and
// questions use.
func (r *resolver) resolveWorkflow(t *Tool) {
	r.resolveStates(t)
	r.resolveArguments(t)
	keys := r.resolveRequestKeys(t)
	for _, s := range t.States {
		if s.Branch != nil {
			r.resolveBranch(t, s, keys)
		}
		if a := s.AskAgain; a != nil {
			if to := t.State(a.State.Name); to != nil && to.Kind != vocab.StateAsk {
				r.errorf(a.State.Pos, "state", "name the ask state whose question the check refused", "state %q asks again at %q, which is %s %s state, not an ask", s.Name, a.State.Name, article(to.Kind.String()), to.Kind)
			}
		}
	}
	r.resolveTemplates(t, keys)
	r.resolveOptions(t)
	r.resolveSets(t)
	r.resolveTransient(t, keys)
	r.resolveValidatorReads(t, keys)
	r.resolveQuestions(t)
}

// resolveStates checks that the initial state, every edge and the task's
// states name declared states.
func (r *resolver) resolveStates(t *Tool) {
	names := make([]string, 0, len(t.States))
	for _, s := range t.States {
		names = append(names, s.Name)
	}
	stateHint := func(name string) string { return suggest(name, sortedCopy(names), "declared states") }
	if t.Initial != "" && t.State(t.Initial) == nil {
		r.errorf(t.InitialPos, "unknown-reference", stateHint(t.Initial), "initial state %q is not declared in %s %q", t.Initial, t.Kind, t.Name)
	}
	for _, s := range t.States {
		for _, e := range s.Edges() {
			if t.State(e.To) == nil {
				r.errorf(e.Pos, "unknown-reference", stateHint(e.To), "state %q goes to %q, which is not declared", s.Name, e.To)
			}
		}
	}
	if td := t.Task; td != nil && t.Kind == vocab.KindTool {
		r.resolveTask(t, td, stateHint)
	}
}

// resolveArguments checks the types and names of the arguments: a prompt's
// or resource's are strings, and none takes a name the workflow already
// has (nonInteractive's inputs, a continuation field).
func (r *resolver) resolveArguments(t *Tool) {
	if t.Kind == vocab.KindPrompt || t.Kind == vocab.KindResource {
		for _, a := range t.Arguments {
			if a.Type != TypeString {
				r.errorf(a.Pos, "field", "declare it as type: string and parse it in a check", "prompt argument %q must be a string (MCP prompt arguments are strings)", a.Name)
			}
		}
	}
	if t.NonInteractive {
		if a := t.Argument("inputs"); a != nil {
			r.errorf(a.Pos, "name-collision", "rename the argument: nonInteractive adds an argument named inputs", "argument %q clashes with the inputs argument of a nonInteractive %s", a.Name, t.Kind)
		}
	}
	// Names a template may use: arguments, continuation fields, ask keys.
	for _, a := range t.Arguments {
		if c := t.Continuation.Field(a.Name); c != nil {
			r.errorf(c.Pos, "name-collision", "rename one of them", "continuation field %q has the same name as an argument", a.Name)
		}
	}
}

// resolveRequestKeys checks that the input requests and confirmation
// gates of the workflow have keys of their own, and returns its input
// requests by key.
func (r *resolver) resolveRequestKeys(t *Tool) map[string]*InputRequest {
	keys := map[string]*InputRequest{}
	gates := map[string]Pos{}
	for _, s := range t.States {
		for _, q := range s.Requests {
			if prev, dup := keys[q.Key]; dup {
				if prev == q {
					continue // a question asked in several states
				}
				hint := "give every input request of a tool its own key"
				if t.Shared(prev) || t.Shared(q) {
					hint = "ask the question (" + q.Key + ": question), or rename the entry"
				}
				r.errorf(q.Pos, "name-collision", hint, "input request key %q is already used at %s", q.Key, prev.Pos)
				continue
			}
			keys[q.Key] = q
		}
		if s.Confirm != nil {
			if prev, dup := gates[s.Confirm.Key]; dup {
				r.errorf(s.Confirm.Pos, "name-collision", "set key: on one of the gates", "confirmation key %q is already used at %s", s.Confirm.Key, prev)
			}
			gates[s.Confirm.Key] = s.Confirm.Pos
		}
	}
	for key, q := range keys {
		if p, ok := gates[key]; ok {
			r.errorf(q.Pos, "name-collision", "rename the request or set key: on the gate", "input request key %q is also a confirmation key (%s)", key, p)
		}
		if t.Argument(key) != nil || t.Continuation.Field(key) != nil {
			r.errorf(q.Pos, "name-collision", "rename the request key", "input request key %q has the same name as an argument or continuation field", key)
		}
	}
	return keys
}

// resolveTemplates checks the validators of every field, then every
// template (each once, though a question's stand in every state that asks
// it), then the text each typed gate asks for.
func (r *resolver) resolveTemplates(t *Tool, keys map[string]*InputRequest) {
	for _, f := range t.AllFields() {
		r.resolveValidators(f)
	}
	for _, q := range t.Requests() {
		if q.Text == nil {
			continue
		}
		r.resolveValidators(q.Text)
		for _, v := range q.Text.Validate {
			if fv := r.f.Validator(v.Name); fv != nil && fv.InContext() {
				r.errorf(v.Pos, "validator-type", "check the text with a validator without reads:, or with a check after the ask (mrtr.AskAgain)",
					"sampled text %q: validator %q reads the workflow (reads:), which a sampled text's validator cannot yet", q.Key, v.Name)
			}
		}
	}
	resolved := map[*Template]bool{}
	for _, s := range t.States {
		for _, tpl := range s.Templates() {
			if resolved[tpl] {
				continue
			}
			resolved[tpl] = true
			r.resolveTemplate(t, tpl, keys, s.Idempotency != nil && tpl == s.Idempotency.Key)
			r.checkFormats(t, tpl, keys, s.Idempotency != nil && tpl == s.Idempotency.Key)
		}
	}
	for _, s := range t.States {
		if s.Confirm != nil && s.Confirm.Typed != nil {
			r.checkTyped(t, s)
		}
	}
}

// resolveOptions resolves the valuesFrom of every dynamic enum of a form
// (or of a multi-select's items) to the continuation list it offers.
func (r *resolver) resolveOptions(t *Tool) {
	var lists []string
	for _, c := range t.Continuation.Fields {
		if c.OptionItems() != nil {
			lists = append(lists, c.Name)
		}
	}
	for _, q := range t.Requests() {
		for _, f := range q.Fields {
			e := f
			if f.Type == TypeArray && f.Items != nil {
				e = f.Items
			}
			if e.ValuesFrom == nil {
				continue
			}
			src := t.Continuation.Field(e.ValuesFrom.Name)
			switch {
			case src == nil && t.Continuation.TransientValue(e.ValuesFrom.Name) != nil:
				r.errorf(e.ValuesFrom.Pos, "transient-use", "offer a carried continuation list: the answer is checked against the options offered, in a later round",
					"form field %q: valuesFrom %q is a transient value, which is not carried to the round that checks the answer", f.Name, e.ValuesFrom.Name)
			case src == nil:
				hint := "declare a continuation list: {type: array, maxItems: N, items: {type: option, maxLength: N, titleMaxLength: N}}"
				if len(lists) > 0 {
					hint = suggest(e.ValuesFrom.Name, lists, "continuation lists")
				}
				r.errorf(e.ValuesFrom.Pos, "unknown-reference", hint, "form field %q: valuesFrom %q names no continuation field", f.Name, e.ValuesFrom.Name)
			case src.OptionItems() == nil:
				r.errorf(e.ValuesFrom.Pos, "field", "offer a list of options (items: {type: option}) or of strings", "form field %q: valuesFrom %q is %s, not a list of options or strings", f.Name, src.Name, src.WireType())
			case src.Sensitive:
				r.errorf(e.ValuesFrom.Pos, "field", "offer a list that may be shown, or drop sensitive: from it", "form field %q: valuesFrom %q is sensitive, but a form sends its options to the client", f.Name, src.Name)
			case f != e && f.MinItems != nil && src.MaxItems != nil && *f.MinItems > *src.MaxItems:
				// A multi-select that needs more options than the list
				// can ever hold could never be answered.
				r.errorf(f.Pos, "field", "lower minItems, or raise the list's maxItems", "form field %q: minItems %d is above the maxItems %d of continuation list %q it offers: the question could never be answered", f.Name, *f.MinItems, *src.MaxItems, src.Name)
			default:
				e.Source = src
			}
		}
	}
}

// resolveTransient checks the transient values of a workflow: a name of
// their own, a type a template can write, and reads that name arguments or
// continuation fields (carried: the method runs in any later round).
func (r *resolver) resolveTransient(t *Tool, keys map[string]*InputRequest) {
	for _, v := range t.Continuation.Transient {
		switch {
		case t.Argument(v.Name) != nil, t.Continuation.Field(v.Name) != nil, keys[v.Name] != nil:
			r.errorf(v.Pos, "name-collision", "rename the transient value", "transient value %q has the same name as an argument, continuation field or input request", v.Name)
		}
		if v.Type == TypeOption {
			r.errorf(v.Pos, "transient", "offer options from a carried continuation list", "transient value %q: options are continuation lists only", v.Name)
		}
		if v.Sensitive {
			r.errorf(v.Pos, "transient", "drop sensitive: a transient value is only ever shown", "transient value %q is sensitive, but templates are all it is for", v.Name)
		}
		for _, rd := range v.Reads {
			ref := ValueRef{Path: rd.Path, Pos: rd.Pos}
			switch {
			case len(ref.Path) == 1 && t.Argument(ref.Path[0]) != nil:
				ref.Kind, ref.Field = RefArgument, t.Argument(ref.Path[0])
			case len(ref.Path) == 1 && t.Continuation.Field(ref.Path[0]) != nil:
				ref.Kind, ref.Field = RefContinuation, t.Continuation.Field(ref.Path[0])
			default:
				r.errorf(rd.Pos, "unknown-reference", "a transient value's method reads arguments and continuation fields (store what it needs from an answer in one with a check)",
					"transient value %q reads %q, which is not an argument or continuation field", v.Name, rd.Name())
				continue
			}
			*rd = ref
		}
	}
}

// resolveSets checks that what a state declares it sets are continuation
// fields, and the outcomes named are the check's.
func (r *resolver) resolveSets(t *Tool) {
	var fields []string
	for _, c := range t.Continuation.Fields {
		fields = append(fields, c.Name)
	}
	for _, s := range t.States {
		var outcomes []string
		for _, b := range s.Outcomes {
			outcomes = append(outcomes, b.Name)
		}
		for _, sd := range s.Sets {
			if t.Continuation.Field(sd.Field.Name) == nil {
				hint := "declare it under continuation.fields"
				if len(fields) > 0 {
					hint = suggest(sd.Field.Name, fields, "continuation fields")
				}
				r.errorf(sd.Field.Pos, "unknown-reference", hint, "state %q sets %q, which is not a continuation field", s.Name, sd.Field.Name)
			}
			for _, o := range sd.Outcomes {
				if !slices.Contains(outcomes, o.Name) {
					r.errorf(o.Pos, "unknown-reference", suggest(o.Name, outcomes, "its outcomes"), "state %q sets %q on outcome %q, which the check does not have", s.Name, sd.Field.Name, o.Name)
				}
			}
		}
	}
}

// Templates lists the templates a state holds: messages, prompts, the
// gate's message, the idempotency key, the result text or messages. Rules
// over placeholders (the loader's resolution, lint) all walk this list.
func (s *State) Templates() []*Template {
	var ts []*Template
	add := func(t *Template) {
		if t != nil {
			ts = append(ts, t)
		}
	}
	for _, q := range s.Requests {
		add(q.Message)
		add(q.URL)
		add(q.Prompt)
	}
	if s.Confirm != nil {
		add(s.Confirm.Message)
		add(s.Confirm.Typed)
	}
	if s.Idempotency != nil {
		add(s.Idempotency.Key)
	}
	add(s.Message)
	for _, m := range s.Messages {
		add(m.Text)
		if m.Content != nil {
			ts = append(ts, m.Content.Templates()...)
		}
	}
	for _, c := range s.Content {
		ts = append(ts, c.Templates()...)
	}
	return ts
}

// AllFields lists every field of a workflow (arguments, continuation, forms),
// each followed by its array item type if it has one.
func (t *Tool) AllFields() []*Field {
	var fs []*Field
	add := func(list []*Field) {
		for _, f := range list {
			fs = append(fs, f)
			if f.Items != nil {
				fs = append(fs, f.Items)
			}
		}
	}
	add(t.Arguments)
	add(t.Continuation.Fields)
	for _, q := range t.Requests() {
		add(q.Fields)
	}
	return fs
}

func (r *resolver) resolveValidators(f *Field) {
	for _, v := range f.Validate {
		i := slices.IndexFunc(r.f.Validators, func(x *Validator) bool { return x.Name == v.Name })
		if i < 0 {
			var declared []string
			for _, x := range r.f.Validators {
				declared = append(declared, x.Name)
			}
			hint := "declare it under validators: with its type"
			if len(declared) > 0 {
				hint = suggest(v.Name, declared, "declared validators")
			}
			r.errorf(v.Pos, "unknown-reference", hint, "validator %q is not declared", v.Name)
			continue
		}
		want := r.f.Validators[i].Type
		got := f.Type
		if got == TypeEnum {
			got = TypeString // enums are validated as their string value
		}
		if got != want {
			r.errorf(v.Pos, "validator-type", "use a validator declared for this type", "validator %q checks %s values, but field %q is %s", v.Name, want, f.Name, f.Type)
		}
	}
}

func (r *resolver) resolveTemplate(t *Tool, tpl *Template, keys map[string]*InputRequest, isIdempotencyKey bool) {
	sections := map[*TemplateRef]bool{}
	for _, p := range tpl.Parts {
		if p.Open != nil {
			sections[p.Open] = true
		}
	}
	for _, ref := range tpl.Refs() {
		if ref.Kind != 0 {
			continue // built in by the decoder
		}
		if !r.resolveRef(t, ref, keys, sections[ref], isIdempotencyKey) {
			continue
		}
		if isIdempotencyKey && (ref.Kind == RefSampled || ref.Kind == RefRoots) {
			r.errorf(ref.Pos, "template", "form operation ids from arguments, continuation fields and form answers", "{%s}: an idempotency key cannot use model output or roots", ref.Name())
		}
	}
	r.checkSections(t, tpl, keys)
}

// resolveRef sets what placeholder ref names (section says it is the
// value of a section), or reports why it names nothing and returns false.
func (r *resolver) resolveRef(t *Tool, ref *TemplateRef, keys map[string]*InputRequest, section, isIdempotencyKey bool) bool {
	name := ref.Path[0]
	switch {
	case keys[name] != nil:
		return r.answerRef(ref, keys[name], section)
	case len(ref.Path) == 1 && name == "workflowId":
		ref.Kind = RefWorkflowID
	case len(ref.Path) == 1 && t.Argument(name) != nil:
		ref.Kind = RefArgument
	case len(ref.Path) == 1 && t.Continuation.Field(name) != nil:
		ref.Kind = RefContinuation
	case len(ref.Path) == 1 && t.Continuation.TransientValue(name) != nil:
		if isIdempotencyKey {
			r.errorf(ref.Pos, "transient-use", "form operation ids from arguments, continuation fields and form answers: an operation id must be the same on every attempt",
				"{%s}: an idempotency key cannot use transient value %q (it is recomputed on each render)", ref.Name(), name)
			return false
		}
		ref.Kind = RefTransient
	default:
		r.errorf(ref.Pos, "unknown-reference", "placeholders name an argument, a continuation field, an input request key, or workflowId",
			"{%s} names nothing declared in %s %q", ref.Name(), t.Kind, t.Name)
		return false
	}
	return true
}

// answerRef sets what placeholder ref names of the answer to q: a form
// field ({key.field}), a whole form in a section ({?key}), sampled text or
// roots ({key}).
func (r *resolver) answerRef(ref *TemplateRef, q *InputRequest, section bool) bool {
	switch {
	case len(ref.Path) == 1 && q.Kind == vocab.Elicit && section:
		ref.Kind = RefAnswer
	case len(ref.Path) == 2 && q.Kind == vocab.Elicit:
		if q.Field(ref.Path[1]) == nil {
			var fields []string
			for _, f := range q.Fields {
				fields = append(fields, f.Name)
			}
			r.errorf(ref.Pos, "unknown-reference", suggest(ref.Path[1], fields, "its fields"), "{%s}: elicitation %q has no field %q", ref.Name(), q.Key, ref.Path[1])
			return false
		}
		ref.Kind = RefFormField
	case len(ref.Path) == 1 && q.Kind == vocab.Sample:
		ref.Kind = RefSampled
	case len(ref.Path) == 1 && q.Kind == vocab.Roots:
		ref.Kind = RefRoots
	default:
		r.errorf(ref.Pos, "unknown-reference", "write {key.field} for a form field, {key} for sampled text or roots", "{%s}: wrong form for input request %q", ref.Name(), q.Key)
		return false
	}
	return true
}

// checkSections checks what the sections of tpl name: a per-item section
// ({*name}) a list, and no placeholder inside {!name} … {/name} names the
// value that is not set there.
func (r *resolver) checkSections(t *Tool, tpl *Template, keys map[string]*InputRequest) {
	for _, p := range tpl.Parts {
		if !p.Each || p.Open.Kind == 0 {
			continue
		}
		if typ, _ := t.refType(p.Open, keys); typ != TypeArray {
			what := typeWithArticle(typ)
			if p.Open.Kind == RefAnswer {
				what = "the answer to a form"
			}
			r.errorf(p.Open.Pos, "template", "repeat text for the items of a list (an array argument, field or answer, or roots); for one value write {?"+p.Open.Name()+"}",
				"{*%s}: %s is %s, not a list", p.Open.Name(), p.Open.Name(), what)
		}
	}
	for ref, around := range tpl.Sections() {
		for _, o := range around {
			if o.Not && ref.Kind != RefItem && (o.Open.Name() == ref.Name() || (o.Open.Kind == RefAnswer && ref.Path[0] == o.Open.Path[0])) {
				r.errorf(ref.Pos, "template", "move it out of the section, or into {?"+o.Open.Name()+"} … {/"+o.Open.Name()+"}",
					"{%s} is inside {!%s} … {/%s}, shown only when %s is not set: it would render as nothing", ref.Name(), o.Open.Name(), o.Open.Name(), o.Open.Name())
			}
		}
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// resolveBranch resolves the value a branch routes on and checks its arms
// against the value's type: cases name values of an enum or a boolean,
// ranges bound a number.
func (r *resolver) resolveBranch(t *Tool, s *State, keys map[string]*InputRequest) {
	b := s.Branch
	ref := &b.On
	name := ref.Path[0]
	switch bindValueRef(t, keys, ref) {
	case refNoSuchField:
		var fields []string
		for _, f := range keys[name].Fields {
			fields = append(fields, f.Name)
		}
		r.errorf(ref.Pos, "unknown-reference", suggest(ref.Path[1], fields, "its fields"), "branch %q: elicitation %q has no field %q", s.Name, name, ref.Path[1])
		return
	case refNotAField:
		r.errorf(ref.Pos, "branch", "branch on a form field (key.field), an argument or a continuation field", "branch %q: %q is the answer of a %s request, which a branch cannot route on", s.Name, ref.Name(), keys[name].Kind.Method())
		return
	case refUndeclared:
		if len(ref.Path) == 1 && t.Continuation.TransientValue(name) != nil {
			r.errorf(ref.Pos, "transient-use", "route on a carried value: have a check store what decides the route in a continuation field",
				"branch %q: %q is a transient value, computed only to render a template", s.Name, name)
			return
		}
		r.errorf(ref.Pos, "unknown-reference", "a branch routes on an argument, a continuation field or a form field (askKey.field)", "branch %q: %q names nothing declared in %s %q", s.Name, ref.Name(), t.Kind, t.Name)
		return
	}
	f := ref.Field
	if f.GoType != nil {
		r.errorf(ref.Pos, "branch", "route it with a check and outcomes, or branch on a value without goType", "branch %q: %s %q has Go type %s, which a branch cannot compare", s.Name, refWhat(ref.Kind), ref.Name(), f.GoType)
		return
	}
	switch f.Type {
	case TypeEnum, TypeBoolean:
		if len(b.Ranges) > 0 {
			r.errorf(b.Ranges[0].Pos, "branch", "route an enum or a boolean with cases: {value: <state>}", "branch %q: %s %q is %s; ranges (when) are for numbers", s.Name, refWhat(ref.Kind), ref.Name(), typeWithArticle(f.Type))
		}
		allowed := []string{"false", "true"}
		if f.Type == TypeEnum {
			allowed = allowed[:0]
			for _, v := range f.Values {
				allowed = append(allowed, v.Value)
			}
		}
		for _, c := range b.Cases {
			if !slices.Contains(allowed, c.Value) {
				r.errorf(c.Pos, "branch", suggest(c.Value, allowed, "its values"), "branch %q: %q is not a value of %s %q", s.Name, c.Value, refWhat(ref.Kind), ref.Name())
			}
		}
	case TypeNumber, TypeInteger:
		if len(b.Cases) > 0 {
			r.errorf(b.Cases[0].Pos, "branch", "route a number with when: [{above: 500, next: <state>}]", "branch %q: %s %q is %s; cases are for enums and booleans", s.Name, refWhat(ref.Kind), ref.Name(), typeWithArticle(f.Type))
		}
		if f.Type == TypeInteger {
			for _, rg := range b.Ranges {
				for _, bd := range []*Bound{rg.Lower, rg.Upper} {
					// Whole numbers an int64 and a float64 both hold exactly.
					if bd != nil && (bd.Value != math.Trunc(bd.Value) || math.Abs(bd.Value) > 1<<53) {
						r.errorf(rg.Pos, "branch", "compare an integer with whole numbers (above: 4 for at least 5)", "branch %q: bound %s of integer %q is not a whole number up to 2^53", s.Name, FormatNumber(bd.Value), ref.Name())
					}
				}
			}
		}
	default:
		r.errorf(ref.Pos, "branch", "branch on an enum, a boolean or a number; route other values with a check and outcomes", "branch %q: %s %q is %s, which a branch cannot route on", s.Name, refWhat(ref.Kind), ref.Name(), typeWithArticle(f.Type))
	}
}

// refWhat names what a reference of kind k is, for messages.
func refWhat(k RefKind) string {
	switch k {
	case RefArgument:
		return "argument"
	case RefContinuation:
		return "continuation field"
	}
	return "form field"
}

// typeWithArticle is "a string", "an integer".
func typeWithArticle(t FieldType) string {
	if t == TypeInteger || t == TypeEnum || t == TypeArray {
		return "an " + t.String()
	}
	return "a " + t.String()
}

// resolveTask checks a tool's task block and fills in its start state: the
// spec's, which must be an effect or check state, or the first effect
// state in flow order.
func (r *resolver) resolveTask(t *Tool, td *TaskDecl, stateHint func(string) string) {
	if td.Start == "" {
		for _, s := range t.States {
			if s.Kind == vocab.StateEffect {
				td.Start, td.StartPos = s.Name, td.Pos
				break
			}
		}
		if td.Start == "" {
			r.errorf(td.Pos, "task", "add an effect state, or name the check that starts the long work with start: <state>", "tool %q is declared long-running but has no effect state for its task to start at", t.Name)
		}
		return
	}
	s := t.State(td.Start)
	switch {
	case s == nil:
		r.errorf(td.StartPos, "unknown-reference", stateHint(td.Start), "task start state %q is not declared in tool %q", td.Start, t.Name)
	case s.Kind != vocab.StateEffect && s.Kind != vocab.StateCheck:
		r.errorf(td.StartPos, "task", "start the task at the effect (or check) that takes long", "task start state %q is %s %s state; a task starts at an effect or a check", td.Start, article(s.Kind.String()), s.Kind)
	}
}
