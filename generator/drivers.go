package generator

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// The typed driver of a workflow, for teams' own tests, in the generated
// test file: every answer struct is an mrtrtest.Answer (its InputResponse
// is the form as a client sends it), the valid answers of the fixtures are
// typed answer structs, and Drive<Tool> starts a workflow with typed
// arguments on an mrtrtest.Driver.
//
// It lives in <tool>.mrtr_test.go, not in the package's code: it imports
// mrtrtest (and so testing), which a server must not link, and only tests
// need it. The package's own tests see it; so does an external test
// package (package <pkg>_test) in the same directory, Drive<Tool> being
// exported.

// driveName is the function that starts a workflow on a Driver.
func (w *workflow) driveName() string { return "Drive" + w.n.base }

// driver emits the answer methods and Drive<Tool>.
func (w *workflow) driver(jf *jen.File) {
	for _, q := range w.requests() {
		if q.Kind == vocab.Elicit {
			w.answerMethod(jf, q)
		}
	}
	n := w.n
	flow := jen.Op("*").Id(n.flow())
	jf.Commentf("%s starts %s %s on h with args, for your handler's tests: round 1 runs; answer", w.driveName(), w.t.Kind, w.t.Name)
	jf.Comment("each question with its typed answer, and check what it asks and how it ends. Every field")
	jf.Comment("of args is sent (one with a default too: set it); a nil pointer is left out. The workflow")
	jf.Commentf("starts as h.Principal (\"alice\" unless you set it): set h.Principal before %s to", w.driveName())
	jf.Comment("start it as another caller; the driver's As sends its next rounds as another caller.")
	jf.Func().Id(w.driveName()).Params(
		jen.Id("t").Qual(pkgTesting, "TB"),
		jen.Id("h").Op("*").Qual(pkgTest, "Harness").Types(flow),
		jen.Id("args").Id(n.args()),
	).Op("*").Qual(pkgTest, "Driver").Types(flow).Block(
		jen.Id("t").Dot("Helper").Call(),
		jen.Return(jen.Qual(pkgTest, "Drive").Call(jen.Id("t"), jen.Id("h"), jen.Id("args"))),
	)
	jf.Line()
}

// answerMethod emits InputResponse of the answer struct of form q.
func (w *workflow) answerMethod(jf *jen.File, q *spec.InputRequest) {
	typ := w.n.answer(q.Key)
	always := jen.Dict{}
	var ifSet []jen.Code // the optional fields, sent when set
	for _, f := range q.Fields {
		v := jen.Id("a").Dot(field(f.Name))
		switch {
		case !optional(f):
			always[jen.Lit(f.Name)] = v
		case f.Type == spec.TypeArray:
			ifSet = append(ifSet, jen.If(v.Clone().Op("!=").Nil()).Block(
				jen.Id("content").Index(jen.Lit(f.Name)).Op("=").Add(v)))
		default:
			ifSet = append(ifSet, jen.If(v.Clone().Op("!=").Nil()).Block(
				jen.Id("content").Index(jen.Lit(f.Name)).Op("=").Op("*").Add(v)))
		}
	}
	jf.Commentf("InputResponse is the answer as a client sends it (an mrtrtest.Answer to %q): the form's", q.Key)
	jf.Comment("content, through JSON.")
	body := []jen.Code{jen.Id("content").Op(":=").Map(jen.String()).Any().Values(always)}
	body = append(body, ifSet...)
	body = append(body, jen.Return(jen.Lit(q.Key), jen.Qual(pkgTest, "Form").Call(jen.Id("content"))))
	jf.Func().Params(jen.Id("a").Id(typ)).Id("InputResponse").Params().Params(jen.String(), jen.Qual(pkgMCP, "InputResponse")).Block(body...)
	jf.Line()
}

// typedAnswer is a valid answer to q as an mrtrtest.Answer: the typed
// answer struct of a form, every field answered that an example can be
// derived for (so the tests run the code of present values too).
func (w *workflow) typedAnswer(q *spec.InputRequest) (jen.Code, error) {
	if q.Kind != vocab.Elicit {
		resp, err := w.validAnswer(q)
		if err != nil {
			return nil, err
		}
		return jen.Qual(pkgTest, "Respond").Call(jen.Lit(q.Key), resp), nil
	}
	// One answer by key: for a question asked with states' own forms, one
	// every such state accepts, typed as the question's answer.
	fields, err := answeredFields(w.answerForm(q))
	if err != nil {
		return nil, err
	}
	values := jen.Dict{}
	for _, a := range fields {
		lit, err := w.typedValue(a.f, a.v, optional(q.Field(a.f.Name)))
		if err != nil {
			return nil, err
		}
		values[jen.Id(field(a.f.Name))] = lit
	}
	return jen.Id(w.n.answer(q.Key)).Values(values), nil
}

// typedValue is the Go literal of JSON example value v as field f's Go
// type (a pointer to it when ptr).
func (w *workflow) typedValue(f *spec.Field, v any, ptr bool) (jen.Code, error) {
	var lit *jen.Statement
	switch {
	case f.GoType != nil:
		// The example is the value's JSON form; the test converts it.
		lit = fromWireMust(f, wireLit(f, v))
	case f.Type == spec.TypeEnum:
		if f.Dynamic() {
			lit = jen.Lit(fmt.Sprint(v)) // offered at run time: a string
			break
		}
		lit = jen.Id(w.enumConst(w.enumOf[f], fmt.Sprint(v)))
	case f.Type == spec.TypeString:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("the example of %s is %v, not a string", f.Name, v)
		}
		lit = jen.Lit(s)
	case f.Type == spec.TypeBoolean:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("the example of %s is %v, not a boolean", f.Name, v)
		}
		lit = jen.Lit(b)
	case f.Type == spec.TypeInteger, f.Type == spec.TypeNumber:
		x, ok := asNumber(v)
		if !ok {
			return nil, fmt.Errorf("the example of %s is %v, not a number", f.Name, v)
		}
		switch {
		case f.Type == spec.TypeNumber:
			lit = jen.Lit(x)
		case ptr:
			lit = jen.Lit(int64(x)) // int64(n): new(n) would be an *int
		default:
			lit = jen.Lit(int(x))
		}
	case f.Type == spec.TypeArray:
		return w.typedList(f, v)
	default:
		return nil, fmt.Errorf("no Go literal for %s of type %s", f.Name, f.Type)
	}
	if ptr {
		return jen.New(lit), nil
	}
	return lit, nil
}

// typedList is the Go literal of JSON example list v as array field f's
// slice type.
func (w *workflow) typedList(f *spec.Field, v any) (jen.Code, error) {
	var items []any
	switch x := v.(type) {
	case []any:
		items = x
	case []string:
		for _, s := range x {
			items = append(items, s)
		}
	default:
		return nil, fmt.Errorf("the example of %s is %v, not a list", f.Name, v)
	}
	item := f.Items
	if item == nil {
		item = &spec.Field{Name: f.Name, Type: spec.TypeString}
	}
	codes := make([]jen.Code, len(items))
	for i, x := range items {
		c, err := w.typedValue(item, x, false)
		if err != nil {
			return nil, err
		}
		codes[i] = c
	}
	return jen.Index().Add(w.itemType(f)).Values(codes...), nil
}

// asNumber is a JSON or YAML number as a float64.
func asNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	}
	return 0, false
}

// typedArgs are valid arguments as the Args struct: the required ones, as
// the fixtures give them, and those with a default at their default (a
// field of the struct that is not a pointer is always sent).
func (w *workflow) typedArgs(variant int) (jen.Code, error) {
	values := jen.Dict{}
	for _, a := range w.t.Arguments {
		v, err := a.Default, error(nil)
		switch {
		case a.Required:
			v, err = exampleValue(a, variant)
		case a.Default == nil:
			continue // a pointer, left out
		}
		if err != nil {
			return nil, err
		}
		lit, err := w.typedValue(a, v, false)
		if err != nil {
			return nil, err
		}
		values[jen.Id(field(a.Name))] = lit
	}
	return jen.Id(w.n.args()).Values(values), nil
}
