package generator

import (
	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// What checks and effects declare they set (sets:), enforced where the
// method returns: a value the spec says is set but that is still unset
// fails the round, naming the method, the state, the outcome and the
// field, instead of rendering as nothing later. Lint proves, from the same
// declarations, that everything read is set on every path (value-not-set).

// unsetCond is the condition under which continuation field c is still
// unset, or nil when its type has no unset value: a string or enum is
// unset while empty, a list while it has no items; a number or boolean's
// zero is a value (and renders as one), so those are proved by lint only.
func unsetCond(c *spec.Field) *jen.Statement {
	v := jen.Id("f").Dot("Continuation").Dot(field(c.Name))
	switch c.Type {
	case spec.TypeString, spec.TypeEnum:
		return v.Op("==").Lit("")
	case spec.TypeArray:
		return jen.Len(v).Op("==").Lit(0)
	}
	return nil
}

// setsChecks appends, for state s left by edge on, the checks of the fields
// it declares it sets on that edge; each fails the step with
// mrtrimpl.NotSet. ret wraps the error in the enclosing function's return.
func (w *workflow) setsChecks(g *jen.Group, s *spec.State, on vocab.Edge, ret func(err jen.Code) jen.Code) {
	kind, method := "check", s.Check
	if s.Kind == vocab.StateEffect {
		kind, method = "effect", s.Effect
	}
	outcome, _ := on.Outcome()
	for _, sd := range s.Sets {
		c := w.t.Continuation.Field(sd.Field.Name)
		if c == nil || !sd.SetsOn(on) {
			continue
		}
		cond := unsetCond(c)
		if cond == nil {
			continue
		}
		g.If(cond).Block(ret(jen.Qual(pkgImpl, "NotSet").Call(
			jen.Lit(kind), jen.Lit(method.Name), jen.Lit(s.Name), jen.Lit(outcome), jen.Lit(c.Name), jen.Lit(field(c.Name)))))
	}
}

// stepError is `return mrtrimpl.Step{}, err` for setsChecks in Step.
func stepError(err jen.Code) jen.Code { return jen.Return(jen.Qual(pkgImpl, "Step").Values(), err) }

// optionGuards appends, before an ask's request q is taken, the check that
// every list its dynamic fields offer has options: a form cannot offer no
// choice, and the round fails saying which list was empty.
func (w *workflow) optionGuards(g *jen.Group, s *spec.State, q *spec.InputRequest) {
	for _, f := range q.Fields {
		e := f
		if f.Type == spec.TypeArray && f.Items != nil {
			e = f.Items
		}
		if !e.Dynamic() || e.Source == nil {
			continue
		}
		g.If(jen.Len(jen.Id("f").Dot("Continuation").Dot(field(e.Source.Name))).Op("==").Lit(0)).Block(
			stepError(jen.Qual(pkgImpl, "NoOptions").Call(jen.Lit(s.Name), jen.Lit(f.Name), jen.Lit(e.Source.Name))))
	}
}
