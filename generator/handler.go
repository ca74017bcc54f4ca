package generator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
)

// handlerMethod is one method of a workflow's handler interface.
type handlerMethod struct {
	name    string // Go name
	doc     []string
	params  []jen.Code
	results []jen.Code
	// for the stub and the fake: what kind of method it is
	kind      string // "authorize", "check", "effect", "validator"
	specName  string
	outcomes  []*spec.Branch
	valueType spec.FieldType
	inFlow    bool   // a validator with context (reads:)
	role      string // an approval hook: the role it resolves
}

// handlerMethods lists the interface in a fixed order: Authorize, then
// checks, effects and approval hooks in state order, then custom validators by name. The
// list is made once: the interface, the fake, the scaffold and the page
// each walk it. Callers do not change it.
func (w *workflow) handlerMethods() []handlerMethod {
	if w.methods == nil {
		w.methods = w.makeHandlerMethods()
	}
	return w.methods
}

func (w *workflow) makeHandlerMethods() []handlerMethod {
	flowParam := jen.Id("f").Op("*").Id(w.n.flow())
	ctxParam := jen.Id("ctx").Qual("context", "Context")
	ms := []handlerMethod{{
		name: "Authorize", kind: "authorize",
		doc: []string{
			fmt.Sprintf("Authorize decides whether f.Call.Principal may run %s with f.Args. It runs", w.t.Name),
			"on every round, before the continuation is opened, because a decision from an",
			"earlier round may no longer hold. Return mrtr.Forbidden to refuse.",
		},
		params: []jen.Code{ctxParam, flowParam}, results: []jen.Code{jen.Error()},
	}}
	seen := map[string]bool{}
	for _, s := range w.t.States {
		switch {
		case s.Check != nil && !seen[s.Check.Name]:
			seen[s.Check.Name] = true
			ms = append(ms, w.checkMethod(s, ctxParam, flowParam))
		case s.Effect != nil && !seen[s.Effect.Name]:
			seen[s.Effect.Name] = true
			ms = append(ms, w.effectMethod(s, ctxParam, flowParam))
		}
		ms = append(ms, w.approvalMethods(s, ctxParam, flowParam)...)
	}
	ms = append(ms, w.outputMethods()...)
	ms = append(ms, w.contentMethods(seen)...)
	ms = append(ms, w.transientMethods()...)
	for _, v := range w.usedValidators() {
		ms = append(ms, w.validatorMethod(v, ctxParam))
	}
	return ms
}

// checkMethod is the method of the check of state s (the first state that
// names it).
func (w *workflow) checkMethod(s *spec.State, ctxParam, flowParam jen.Code) handlerMethod {
	name := s.Check.Name
	m := handlerMethod{name: method(name), kind: "check", specName: name, params: w.methodParams(name, ctxParam, flowParam)}
	m.doc = []string{fmt.Sprintf("%s is the check of state %s.", m.name, s.Name)}
	m.doc = append(m.doc, w.stateDoc(s, name)...)
	m.doc = append(m.doc, "Return mrtr.Reject to refuse the request with a message; any other error is a dependency failure.")
	for _, a := range askAgainUses(w.t, name) {
		m.doc = append(m.doc, fmt.Sprintf("In state %s, return mrtr.AskAgain with a message for the user to ask %s again (%d answers in all; then %s).",
			a.state, a.ask, a.max, a.exhausted))
	}
	if len(s.Outcomes) > 0 {
		m.outcomes = s.Outcomes
		m.results = []jen.Code{jen.Id(w.n.outcome(name)), jen.Error()}
	} else {
		m.results = []jen.Code{jen.Error()}
	}
	return m
}

// effectMethod is the method of the effect of state s (the first state
// that names it).
func (w *workflow) effectMethod(s *spec.State, ctxParam, flowParam jen.Code) handlerMethod {
	name := s.Effect.Name
	m := handlerMethod{name: method(name), kind: "effect", specName: name, params: w.methodParams(name, ctxParam, flowParam), results: []jen.Code{jen.Error()}}
	what := "the side effect"
	if s.Irreversible {
		what = "the irreversible side effect"
	}
	m.doc = []string{fmt.Sprintf("%s is %s of state %s.", m.name, what, s.Name)}
	if isDefaultKey(s.Idempotency) {
		m.doc = append(m.doc, "Once it returned, it is not run again for this workflow round: retries replay its outcome.")
	} else {
		m.doc = append(m.doc, fmt.Sprintf("Once it returned, it is not run again for operation id %s: retries replay its outcome.", s.Idempotency.Key.Raw))
	}
	m.doc = append(m.doc,
		"If the instance running it dies first, a retry runs it again after the lease (at least once):",
		"f.Call.Attempt.Takeover says so, and f.Call.Attempt.OperationID is the same on every attempt;",
		"pass it as the idempotency key of the downstream call. Store its results in f.Continuation.")
	m.doc = append(m.doc, w.stateDoc(s, name)...)
	m.doc = append(m.doc, "Return mrtr.Reject for a definite refusal (recorded and replayed); any other error lets a retry try again.")
	return m
}

// stateDoc is what the method named name of state s is told of the state:
// its description, the continuation fields it sets, and whether it may
// report progress.
func (w *workflow) stateDoc(s *spec.State, name string) []string {
	var doc []string
	if d := strings.TrimSpace(s.Description); d != "" {
		doc = append(doc, d)
	}
	if d := w.setsDoc(name); d != "" {
		doc = append(doc, d)
	}
	if w.slow(name) {
		doc = append(doc, progressDoc)
	}
	return doc
}

// validatorMethod is the method of custom validator v.
func (w *workflow) validatorMethod(v *spec.Validator, ctxParam jen.Code) handlerMethod {
	m := handlerMethod{name: method(v.Name), kind: "validator", specName: v.Name, valueType: v.Type,
		params:  []jen.Code{ctxParam, jen.Id("value").Add(w.validatorType(v.Type))},
		results: []jen.Code{jen.Error()},
	}
	if v.InContext() {
		m.params = append(m.params, jen.Id("in").Id(w.readsType(v)))
		m.inFlow = true
	}
	m.doc = []string{fmt.Sprintf("%s is custom validator %s; it runs once value has passed the spec's built-in constraints.", m.name, v.Name)}
	if d := strings.TrimSpace(v.Description); d != "" {
		m.doc = append(m.doc, d)
	}
	if v.InContext() {
		m.doc = append(m.doc, w.flowValidatorDoc(v))
	}
	m.doc = append(m.doc,
		"Return mrtr.Invalid saying what is wrong with value: the user is shown it (an answer is asked for again).",
		"Any other error means value could not be checked (a backend is down): the round fails as a dependency",
		"error, and the error goes to the log only.")
	return m
}

func (w *workflow) validatorType(t spec.FieldType) *jen.Statement {
	switch t {
	case spec.TypeNumber:
		return jen.Float64()
	case spec.TypeInteger:
		return jen.Int64()
	case spec.TypeBoolean:
		return jen.Bool()
	}
	return jen.String()
}

// usedValidators lists the file's validators this workflow uses, by name.
func (w *workflow) usedValidators() []*spec.Validator {
	used := map[string]bool{}
	for _, f := range w.allFields() {
		for _, x := range []*spec.Field{f, f.Items} {
			if x == nil {
				continue
			}
			for _, v := range x.Validate {
				used[v.Name] = true
			}
		}
	}
	for _, q := range w.requests() {
		if q.Text != nil {
			for _, v := range q.Text.Validate {
				used[v.Name] = true
			}
		}
	}
	var out []*spec.Validator
	for _, v := range w.g.f.Validators {
		if used[v.Name] {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b *spec.Validator) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (w *workflow) handlerInterface(jf *jen.File) {
	n := w.n
	jf.Commentf("%s is what you implement for %s %s. Adding a check, effect or", n.handler(), w.t.Kind, w.t.Name)
	jf.Comment("validator to the spec adds a method here, so an implementation that misses it")
	jf.Comment("does not compile.")
	jf.Type().Id(n.handler()).InterfaceFunc(func(g *jen.Group) {
		for i, m := range w.handlerMethods() {
			if i > 0 {
				g.Line()
			}
			for _, d := range m.doc {
				g.Comment(d)
			}
			g.Id(m.name).Params(m.params...).Params(m.results...)
		}
	})
	jf.Line()
}

// askAgainUse is a state of a check that may ask again.
type askAgainUse struct {
	state, ask, exhausted string
	max                   int
}

// askAgainUses lists the states of check that declare askAgain.
func askAgainUses(t *spec.Tool, check string) []askAgainUse {
	var out []askAgainUse
	for _, s := range t.States {
		if s.Check != nil && s.Check.Name == check && s.AskAgain != nil {
			out = append(out, askAgainUse{s.Name, s.AskAgain.State.Name, s.AskAgain.OnExhausted.Name, s.AskAgain.MaxAttempts})
		}
	}
	return out
}
