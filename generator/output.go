package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
)

// Structured output (spec/output.go): the tool's output struct, its
// outputSchema, a handler method per terminal state that declares output,
// and the check of what that method filled before the engine sends it as
// structuredContent. The Go type of an output field tells unset from set:
// a string or enum is unset while empty, a list while nil, and a number or
// boolean (whose zero is a value) is a pointer, unset while nil.

// output is the tool's output struct: RefundOrderOutput.
func (n names) output() string { return n.base + "Output" }

// outputMethod is the handler method that fills the output of terminal
// state s: RefundedOutput.
func outputMethod(s *spec.State) string { return spec.GoName(s.Name) + "Output" }

// outputCheck is the function checking what outputMethod filled.
func (w *workflow) outputCheck(s *spec.State) string {
	return "check" + w.n.base + spec.GoName(s.Name) + "Output"
}

// outputGoType is the Go type of output field f.
func (w *workflow) outputGoType(f *spec.Field) *jen.Statement {
	return w.goType(f, outputPtr(f))
}

// outputPtr reports whether output field f's Go value is a pointer: a
// number, integer or boolean, and a value of a goType (whose zero value may
// be a value, a nil UUID, or have no JSON form at all).
func outputPtr(f *spec.Field) bool {
	return f.Type == spec.TypeNumber || f.Type == spec.TypeInteger || f.Type == spec.TypeBoolean || f.GoType != nil
}

// outputType emits the output struct: every output field of the tool's
// terminal states.
func (w *workflow) outputType(jf *jen.File) {
	t, n := w.t, w.n
	if !t.HasOutput() {
		return
	}
	var states []string
	for _, s := range t.OutputStates() {
		states = append(states, s.Name)
	}
	jf.Commentf("%s is the structured result of %s (MCP structuredContent; its", n.output(), t.Name)
	jf.Commentf("outputSchema), filled by the handler's output method of terminal state %s.", strings.Join(states, ", "))
	jf.Comment("A string or enum is unset while empty, a list while nil, a number or boolean while nil.")
	for _, of := range t.OutputFields() {
		if of.GoType != nil {
			jf.Comment("A value of a Go type of your own (goType) is a pointer too, unset while nil.")
			break
		}
	}
	jf.Type().Id(n.output()).StructFunc(func(g *jen.Group) {
		for _, of := range t.OutputFields() {
			f := of.Field
			doc := fieldDoc(field(f.Name), f, "output field")
			if st := w.requiringStates(f.Name); len(st) > 0 {
				doc += " Required in " + strings.Join(st, ", ") + "."
			}
			g.Comment(doc)
			g.Id(field(f.Name)).Add(w.outputGoType(f)).Tag(map[string]string{"json": f.Name + ",omitzero"})
		}
	})
	jf.Line()
}

// requiringStates are the states that require output field name.
func (w *workflow) requiringStates(name string) []string {
	var out []string
	for _, s := range w.t.OutputStates() {
		if f := s.OutputField(name); f != nil && f.Required {
			out = append(out, s.Name)
		}
	}
	return out
}

// outputSchema is the tool's MCP outputSchema: every output field, required
// when every non-error terminal state requires it.
func (w *workflow) outputSchema() []byte {
	var fields []*spec.Field
	for i, of := range w.t.OutputFields() {
		f := *of.Field
		f.Required = of.SchemaRequired
		f.Written = i
		fields = append(fields, &f)
	}
	return marshalSchema(objectSchema(fields, false))
}

// outputMethods are the handler methods of the terminal states with output.
func (w *workflow) outputMethods() []handlerMethod {
	var ms []handlerMethod
	for _, s := range w.t.OutputStates() {
		var req []string
		for _, f := range s.Output {
			if f.Required {
				req = append(req, fmt.Sprintf("out.%s", field(f.Name)))
			}
		}
		m := handlerMethod{name: outputMethod(s), kind: "output", specName: s.Name,
			params: []jen.Code{
				jen.Id("ctx").Qual("context", "Context"), jen.Id("f").Op("*").Id(w.n.flow()),
				jen.Id("out").Op("*").Id(w.n.output()),
			},
			results: []jen.Code{jen.Error()},
		}
		m.doc = []string{fmt.Sprintf("%s fills the structured result of terminal state %s (%s), sent as", m.name, s.Name, s.Outcome),
			"structuredContent with the state's message as its text."}
		if len(req) > 0 {
			m.doc = append(m.doc, "It must set "+strings.Join(req, ", ")+"; a required field left unset, a value the spec does not allow")
		} else {
			m.doc = append(m.doc, "A value the spec does not allow")
		}
		m.doc = append(m.doc, "or a field of another state fails the round (logged, naming the state and the field).",
			"It runs once the workflow ends there; retries of that round replay the recorded result.",
			"An error is a dependency failure.")
		ms = append(ms, m)
	}
	return ms
}

// outputCase is the step of terminal state s with output: the handler
// fills it, the generated check checks it, and the engine sends it.
func (w *workflow) outputCase(c *jen.Group, s *spec.State, final []pair) {
	c.Var().Id("out").Id(w.n.output())
	c.If(jen.Err().Op(":=").Id("p").Dot("h").Dot(outputMethod(s)).Call(jen.Id("ctx"), jen.Id("f"), jen.Op("&").Id("out")), jen.Err().Op("!=").Nil()).Block(
		stepError(jen.Err()))
	c.List(jen.Id("structured"), jen.Err()).Op(":=").Add(implX("StructuredOutput")).Call(
		jen.Lit(s.Name), jen.Lit(outputMethod(s)), jen.Id(w.outputCheck(s)).Call(jen.Op("&").Id("out")), jen.Op("&").Id("out"))
	c.If(jen.Err().Op("!=").Nil()).Block(stepError(jen.Err()))
	final = append(final, pair{jen.Id("Structured"), jen.Id("structured")})
	c.Return(jen.Id("r").Dot("Finish").Call(jen.Qual(pkgMRTR, "Final").Add(oneLine(final...))))
}

// outputChecks emits, per terminal state with output, the pattern
// variables of its fields and the function that checks what the handler
// filled: required fields set, fields of other states unset, and every
// value within the spec's built-in constraints.
func (w *workflow) outputChecks(jf *jen.File) {
	for _, s := range w.t.OutputStates() {
		scope := "output" + spec.GoName(s.Name)
		for _, f := range s.Output {
			w.patternVars(jf, f, scope)
		}
		jf.Commentf("%s checks the output %s filled for state %s.", w.outputCheck(s), outputMethod(s), s.Name)
		jf.Func().Id(w.outputCheck(s)).Params(jen.Id("out").Op("*").Id(w.n.output())).Qual(pkgImpl, "Problems").BlockFunc(func(g *jen.Group) {
			g.Var().Id("problems").Qual(pkgImpl, "Problems")
			for _, of := range w.t.OutputFields() {
				v := jen.Id("out").Dot(field(of.Name))
				f := s.OutputField(of.Name)
				if f == nil {
					g.If(outputSetCond(of.Field, v.Clone())).Block(
						jen.Id("problems").Dot("Add").Call(implX("OutputNotDeclared").Call(jen.Lit(of.Name), jen.Lit(field(of.Name)))))
					continue
				}
				if f.Required {
					g.If(outputUnsetCond(f, v.Clone())).Block(
						jen.Id("problems").Dot("Add").Call(implX("OutputNotSet").Call(jen.Lit(f.Name), jen.Lit(field(f.Name)))))
				}
				switch {
				case f.Type == spec.TypeArray && hasBuiltinChecks(f):
					// A list is set when not nil: an empty one is sent ([]),
					// so its bounds apply to it.
					g.If(jen.Id("list").Op(":=").Add(v.Clone()), jen.Id("list").Op("!=").Nil()).BlockFunc(func(b *jen.Group) {
						countChecks(b, f, jen.Len(jen.Id("list")), "FewerItems", "MoreItems")
						if hasBuiltins(f.Items) {
							b.For(jen.List(jen.Id("_"), jen.Id("v")).Op(":=").Range().Id("list")).BlockFunc(func(l *jen.Group) {
								w.checks(l, f.Items, scope, f.Name+"[]")
							})
						}
					})
				case hasBuiltinChecks(f):
					w.carriedChecks(g, f, v.Clone(), outputPtr(f), scope, f.Name)
				}
			}
			g.Return(jen.Id("problems"))
		})
		jf.Line()
	}
}

// outputUnsetCond is the condition under which output field f (value v)
// is unset.
func outputUnsetCond(f *spec.Field, v *jen.Statement) *jen.Statement {
	switch {
	case outputPtr(f), f.Type == spec.TypeArray:
		return v.Op("==").Nil()
	}
	return v.Op("==").Lit("")
}

// outputSetCond is the condition under which output field f (value v) is
// set.
func outputSetCond(f *spec.Field, v *jen.Statement) *jen.Statement {
	switch {
	case outputPtr(f), f.Type == spec.TypeArray:
		return v.Op("!=").Nil()
	}
	return v.Op("!=").Lit("")
}

// fakeOutput is the body of the fake's output method of state s: it fills
// every output field of the state with a valid value, one of two variants
// by the parity of its calls (mrtrtest.Fake.Output), so that a round that
// ran the method again instead of replaying its record would reply
// otherwise, which the matrix's duplicate final rounds catch.
func (w *workflow) fakeOutput(g *jen.Group, s *spec.State) error {
	fill := func(variant int) ([]jen.Code, error) {
		var out []jen.Code
		for _, f := range s.Output {
			v, err := exampleValue(f, variant)
			if err != nil {
				return nil, fmt.Errorf("%s: output field %s of state %s: %w (give it an example)", w.t.Name, f.Name, s.Name, err)
			}
			out = append(out, jen.Id("out").Dot(field(f.Name)).Op("=").Add(w.outputLiteral(f, v)))
		}
		return out, nil
	}
	first, err := fill(0)
	if err != nil {
		return err
	}
	second, err := fill(1)
	if err != nil {
		return err
	}
	g.If(jen.Id("h").Dot("fake").Dot("Output").Call(jen.Lit(s.Name)).Op("==").Lit(0)).Block(first...).Else().Block(second...)
	g.Return(jen.Nil())
	return nil
}

// outputLiteral is the Go value of example v for output field f.
func (w *workflow) outputLiteral(f *spec.Field, v any) jen.Code {
	if f.GoType != nil {
		return jen.New(fromWireMust(f, wireLit(f, v)))
	}
	switch f.Type {
	case spec.TypeEnum:
		return jen.Id(w.enumConst(w.enumOf[f], fmt.Sprint(v)))
	case spec.TypeInteger:
		return jen.New(jen.Int64().Call(intLit(toInt(v))))
	case spec.TypeNumber:
		x, _ := v.(float64)
		return jen.New(jen.Float64().Call(jen.Lit(x)))
	case spec.TypeBoolean:
		return jen.New(jen.Lit(v))
	case spec.TypeArray:
		var items []jen.Code
		switch xs := v.(type) {
		case []any:
			for _, x := range xs {
				items = append(items, w.itemLiteral(f, x))
			}
		case []string:
			for _, x := range xs {
				items = append(items, w.itemLiteral(f, x))
			}
		}
		return jen.Index().Add(w.itemType(f)).Values(items...)
	}
	return jen.Lit(fmt.Sprint(v))
}

// itemLiteral is the Go value of one item x of output list f.
func (w *workflow) itemLiteral(f *spec.Field, x any) jen.Code {
	switch f.Items.Type {
	case spec.TypeEnum:
		return jen.Id(w.enumConst(w.enumOf[f.Items], fmt.Sprint(x)))
	case spec.TypeInteger:
		return intLit(toInt(x))
	case spec.TypeNumber:
		v, _ := x.(float64)
		return jen.Lit(v)
	case spec.TypeBoolean:
		return jen.Lit(x)
	}
	return jen.Lit(fmt.Sprint(x))
}

// toInt is an integer example as int64 (examples decode as int64, derived
// ones too).
func toInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	case int:
		return int64(x)
	}
	return 0
}
