package generator

import (
	"fmt"
	"slices"
	"strings"

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
	v := wire(c, jen.Id("f").Dot("Continuation").Dot(field(c.Name)))
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
// mrtrimpl.X.NotSet. ret wraps the error in the enclosing function's return.
func (w *workflow) setsChecks(g *jen.Group, s *spec.State, on vocab.Edge, ret func(err jen.Code) jen.Code) {
	kind, method := "check", s.Check
	if s.Kind == vocab.StateEffect {
		kind, method = "effect", s.Effect
	}
	outcome := ""
	if o, ok := on.Outcome(); ok {
		outcome = o
	}
	for _, sd := range s.Sets {
		c := w.t.Continuation.Field(sd.Field.Name)
		if c == nil || !sd.SetsOn(on) {
			continue
		}
		cond := unsetCond(c)
		if cond == nil {
			continue
		}
		g.If(cond).Block(ret(implX("NotSet").Call(
			jen.Lit(kind), jen.Lit(method.Name), jen.Lit(s.Name), jen.Lit(outcome), jen.Lit(c.Name), jen.Lit(field(c.Name)))))
	}
}

// stepError is `return mrtrimpl.Step{}, err` for setsChecks in Step.
func stepError(err jen.Code) jen.Code { return jen.Return(jen.Qual(pkgImpl, "Step").Values(), err) }

// optionGuards appends, before an ask's request q is taken, the check that
// every list its dynamic fields offer has options: a form cannot offer no
// choice, and the round fails saying which list was empty.
func (w *workflow) optionGuards(g *jen.Group, s *spec.State, q *spec.InputRequest) {
	var guarded []*spec.Field
	for _, f := range q.Fields {
		e := f
		if f.Type == spec.TypeArray && f.Items != nil {
			e = f.Items
		}
		if !e.Dynamic() || e.Source == nil {
			continue
		}
		list := jen.Id("f").Dot("Continuation").Dot(field(e.Source.Name))
		if !slices.Contains(guarded, e.Source) {
			guarded = append(guarded, e.Source)
			g.If(jen.Len(list.Clone()).Op("==").Lit(0)).Block(
				stepError(implX("NoOptions").Call(jen.Lit(s.Name), jen.Lit(f.Name), jen.Lit(e.Source.Name))))
		}
		if f != e && f.MinItems != nil && *f.MinItems > 1 {
			// A multi-select that must pick more options than were found
			// could never be answered: it would be asked again forever.
			g.If(jen.Len(list.Clone()).Op("<").Lit(*f.MinItems)).Block(
				stepError(implX("TooFewOptions").Call(jen.Lit(s.Name), jen.Lit(f.Name), jen.Lit(e.Source.Name), jen.Lit(*f.MinItems), jen.Len(list.Clone()))))
		}
	}
}

// methodSets lists what the states running handler method name (a check
// or effect, possibly in several states) declare they set.
func (w *workflow) methodSets(name string) []*spec.SetDecl {
	var out []*spec.SetDecl
	for _, s := range w.t.States {
		if (s.Check != nil && s.Check.Name == name) || (s.Effect != nil && s.Effect.Name == name) {
			out = append(out, s.Sets...)
		}
	}
	return out
}

// setsDoc is the line of a handler method's documentation saying what the
// spec says it sets, or "".
func (w *workflow) setsDoc(name string) string {
	var parts []string
	seen := map[string]bool{}
	for _, sd := range w.methodSets(name) {
		c := w.t.Continuation.Field(sd.Field.Name)
		if c == nil || seen[c.Name] {
			continue
		}
		seen[c.Name] = true
		part := "f.Continuation." + field(c.Name)
		if len(sd.Outcomes) > 0 {
			part += " (on " + strings.Join(sd.OutcomeNames(), ", ") + ")"
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	return "It must set " + strings.Join(parts, ", ") + " before it returns (sets: in the spec); a value still empty fails the round."
}

// fakeSets appends to a generated fake's method what the spec says the
// method sets, with example values, so the generated tests walk a
// workflow whose declarations hold. out is the outcome the fake took (nil
// for a method without outcomes); typ is the check's outcome type.
func (w *workflow) fakeSets(g *jen.Group, name string, outcomes []*spec.Branch, out jen.Code, typ string) error {
	decls := w.methodSets(name)
	if len(decls) == 0 {
		return nil
	}
	assign := func(g *jen.Group, c *spec.Field) error {
		v, err := w.exampleGo(c)
		if err != nil {
			return fmt.Errorf("continuation field %s, which %s sets: %w", c.Name, name, err)
		}
		g.Id("f").Dot("Continuation").Dot(field(c.Name)).Op("=").Add(v)
		return nil
	}
	var err error
	g.Commentf("What the spec says %s sets, as the real method must.", name)
	if len(outcomes) == 0 {
		for _, sd := range decls {
			if c := w.t.Continuation.Field(sd.Field.Name); c != nil && err == nil {
				err = assign(g, c)
			}
		}
		return err
	}
	g.Switch(jen.Id(typ).Call(out)).BlockFunc(func(sw *jen.Group) {
		for _, b := range outcomes {
			on := vocab.OutcomeEdge(b.Name)
			var cs []*spec.Field
			for _, sd := range decls {
				if c := w.t.Continuation.Field(sd.Field.Name); c != nil && sd.SetsOn(on) && !slices.Contains(cs, c) {
					cs = append(cs, c)
				}
			}
			if len(cs) == 0 {
				continue
			}
			sw.Case(jen.Id(w.n.outcomeConst(name, b.Name))).BlockFunc(func(cg *jen.Group) {
				for _, c := range cs {
					if err == nil {
						err = assign(cg, c)
					}
				}
			})
		}
	})
	return err
}

// exampleGo is a Go value of continuation field c for the generated fake:
// its example, or one derived from its constraints; a list a form offers
// holds the options the generated answers choose from.
func (w *workflow) exampleGo(c *spec.Field) (jen.Code, error) {
	if c.Type == spec.TypeArray && c.Items != nil && (c.Items.Type == spec.TypeOption || w.offered(c)) {
		opts, err := exampleOptions(c)
		if err != nil {
			return nil, err
		}
		if c.Items.Type == spec.TypeString {
			return jen.Index().String().ValuesFunc(func(g *jen.Group) {
				for _, o := range opts {
					g.Lit(o.Value)
				}
			}), nil
		}
		return jen.Index().Qual(pkgMRTR, "Option").ValuesFunc(func(g *jen.Group) {
			for _, o := range opts {
				g.Values(jen.Id("Value").Op(":").Lit(o.Value), jen.Id("Title").Op(":").Lit(o.Title))
			}
		}), nil
	}
	v, err := exampleValue(c, 0)
	if err != nil {
		return nil, err
	}
	return w.goValue(c, v), nil
}

// offered reports whether a form of the workflow offers continuation
// field c as options.
func (w *workflow) offered(c *spec.Field) bool {
	for _, q := range w.requests() {
		if slices.Contains(offeredSources(q), c) {
			return true
		}
	}
	return false
}

// goValue is the Go literal of example value v of field f (of f's Go type).
func (w *workflow) goValue(f *spec.Field, v any) jen.Code {
	if f.GoType != nil {
		return fromWireMust(f, wireLit(f, v))
	}
	switch f.Type {
	case spec.TypeEnum:
		if s, ok := v.(string); ok && !f.Dynamic() {
			return jen.Id(w.enumConst(w.enumOf[f], s))
		}
	case spec.TypeArray:
		items, _ := v.([]any)
		if ss, ok := v.([]string); ok {
			for _, s := range ss {
				items = append(items, s)
			}
		}
		return jen.Index().Add(w.itemType(f)).ValuesFunc(func(g *jen.Group) {
			for _, x := range items {
				g.Add(w.goValue(f.Items, x))
			}
		})
	case spec.TypeInteger:
		if i, ok := v.(int64); ok {
			return intLit(i)
		}
	}
	return jen.Lit(v)
}
