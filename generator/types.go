package generator

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/internal/machine"
	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// workflow generates the code of one tool or prompt. It remembers what it
// derives (the state machine, the arms, the handler methods) and is used
// by one goroutine at a time.
type workflow struct {
	g     *gen
	t     *spec.Tool
	n     names
	num   map[string]int // state name → number (1-based, in model order)
	enums []*enumType
	// enumOf is the Go type of each enum field, and of each array of enums
	// and its items.
	enumOf map[*spec.Field]*enumType
	cycles map[string]bool // state name → on a cycle (see reentrant)
	sm     *machine.Graph  // the state machine (see graph)
	// armsCache is the value branches' sources, for the generated tests
	// (see arms).
	armsCache *armModel
	// reserved are Go names enum types must not take.
	reserved map[string]bool
	methods  []handlerMethod // see handlerMethods
}

// enumType is a generated Go type for the values of an enum field.
type enumType struct {
	name   string
	values []spec.EnumValue
	doc    string
}

func newWorkflow(g *gen, t *spec.Tool) *workflow {
	w := &workflow{g: g, t: t, n: newNames(t), num: map[string]int{}, enumOf: map[*spec.Field]*enumType{}}
	for i, s := range t.States {
		w.num[s.Name] = i + 1
	}
	// Enum types must not take the names of the workflow's other types (a
	// form field named "state" would make <Tool>State).
	reserved := map[string]bool{}
	for _, name := range []string{w.n.state(), w.n.args(), w.n.continuation(), w.n.flow(), w.n.handler(), w.n.base + "Impl"} {
		reserved[name] = true
	}
	for _, q := range w.requests() {
		reserved[w.n.answer(q.Key)] = true
	}
	for _, s := range t.States {
		if s.Check != nil {
			reserved[w.n.outcome(s.Check.Name)] = true
		}
	}
	if t.HasOutput() {
		reserved[w.n.output()] = true
	}
	w.reserved = reserved
	w.addEnums("arg", t.Arguments)
	w.addEnums("continuation", t.Continuation.Fields)
	var transients []*spec.Field
	for _, v := range t.Continuation.Transient {
		transients = append(transients, v.Field)
	}
	w.addEnums("transient", transients)
	for _, q := range w.requests() {
		w.addEnums(q.Key, q.Fields)
	}
	w.siteFormEnums()
	for _, s := range t.OutputStates() {
		w.addEnums("output", s.Output)
	}
	return w
}

// addEnums gives each enum field of a scope (arguments, continuation, a
// form) its Go type. Fields of one name share a type when their values
// are the same (<Tool><Field>); a field whose values differ from those of
// an earlier field of its name gets a type named after its scope too
// (<Tool><Scope><Field>), so each is validated against its own values.
func (w *workflow) addEnums(scope string, fields []*spec.Field) {
	for _, f := range fields {
		e := f
		if f.Type == spec.TypeArray && f.Items != nil {
			e = f.Items
		}
		if e.Type != spec.TypeEnum || e.ValuesFrom != nil {
			continue // a dynamic enum's values are strings known at run time
		}
		var et *enumType
		for i, name := 0, w.n.enum(f.Name); et == nil; i++ {
			switch i {
			case 0:
			case 1:
				name = w.n.base + spec.GoName(scope) + spec.GoName(f.Name)
			default:
				name = fmt.Sprintf("%s%s%s%d", w.n.base, spec.GoName(scope), spec.GoName(f.Name), i)
			}
			j := slices.IndexFunc(w.enums, func(x *enumType) bool { return x.name == name })
			switch {
			case w.reserved[name]:
			case j < 0:
				et = &enumType{name: name, values: e.Values, doc: f.Name}
				w.enums = append(w.enums, et)
			case slices.Equal(values(w.enums[j].values), values(e.Values)):
				et = w.enums[j]
			}
		}
		w.enumOf[f], w.enumOf[e] = et, et
	}
}

// enumConst is the Go constant of one value of an enum type.
func (w *workflow) enumConst(e *enumType, value string) string { return e.name + valueName(value) }

// valueName is the Go name of an enum value. Values are free text: an
// ASCII value gets spec.GoName (ID, URL... as everywhere), any other one a
// name built rune by rune (spec.GoName upper-cases the first byte, which
// splits a multi-byte letter: "über" made invalid Go).
func valueName(v string) string {
	ascii := true
	for i := 0; i < len(v); i++ {
		ascii = ascii && v[i] < utf8.RuneSelf
	}
	if ascii {
		return spec.GoName(v)
	}
	var b strings.Builder
	upper := true
	for _, r := range v {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			upper = true
		case upper:
			b.WriteRune(unicode.ToUpper(r))
			upper = false
		default:
			b.WriteRune(r)
		}
	}
	name := b.String()
	if r, _ := utf8.DecodeRuneInString(name); !unicode.IsLetter(r) {
		name = "X" + name
	}
	return name
}

// allFields lists arguments, continuation fields and form fields.
func (w *workflow) allFields() []*spec.Field {
	fs := slices.Clone(w.t.Arguments)
	fs = append(fs, w.t.Continuation.Fields...)
	for _, q := range w.requests() {
		fs = append(fs, q.Fields...)
	}
	return fs
}

// requests lists every input request of the workflow once, in state order
// (a question asked in several states where it is first asked): one key is
// one answer, one answer type and one continuation entry.
func (w *workflow) requests() []*spec.InputRequest { return w.t.Requests() }

func (w *workflow) stateID(name string) *jen.Statement { return jen.Id(w.n.stateConst(name)) }

// goType is the Go type of a field's value; optional says whether an
// absent value must be distinguishable (a pointer, or a nil slice).
func (w *workflow) goType(f *spec.Field, optional bool) *jen.Statement {
	var t *jen.Statement
	switch {
	case f.GoType != nil:
		t = userType(f)
	case f.Type == spec.TypeString:
		t = jen.String()
	case f.Type == spec.TypeNumber:
		t = jen.Float64()
	case f.Type == spec.TypeInteger:
		t = jen.Int64()
	case f.Type == spec.TypeBoolean:
		t = jen.Bool()
	case f.Type == spec.TypeEnum:
		if f.Dynamic() {
			t = jen.String()
		} else {
			t = jen.Id(w.enumOf[f].name)
		}
	case f.Type == spec.TypeOption:
		t = jen.Qual(pkgMRTR, "Option")
	case f.Type == spec.TypeArray:
		item := w.itemType(f)
		return jen.Index().Add(item)
	}
	if optional {
		return jen.Op("*").Add(t)
	}
	return t
}

// optional reports whether a field may be absent after validation, so its
// Go value must tell absence apart: an argument or form field that is not
// required and has no default (a pointer; an array is a nil slice). A field
// with a default always has a value.
func optional(f *spec.Field) bool { return !f.Required && f.Default == nil }

func (w *workflow) itemType(f *spec.Field) *jen.Statement {
	if f.Items == nil {
		return jen.String()
	}
	if f.Items.Type == spec.TypeEnum && !f.Items.Dynamic() {
		return jen.Id(w.enumOf[f.Items].name)
	}
	return w.goType(f.Items, false)
}

// fieldDoc is a field's comment: its description, or what it is.
func fieldDoc(goName string, f *spec.Field, what string) string {
	d := strings.TrimSpace(f.Description)
	if d == "" {
		d = strings.TrimSpace(f.Title)
	}
	if d == "" {
		return fmt.Sprintf("%s is %s %q.", goName, what, f.Name)
	}
	if !strings.HasSuffix(d, ".") && !strings.HasSuffix(d, "?") && !strings.HasSuffix(d, "!") {
		d += "."
	}
	// Go doc style: the comment starts with the name it documents.
	return fmt.Sprintf("%s is %s %q. %s", goName, what, f.Name, d)
}

// types emits the Go types of a workflow, in the order a reader meets them.
func (w *workflow) types(jf *jen.File) {
	w.enumTypes(jf)
	w.argsType(jf)
	w.continuationType(jf)
	w.outputType(jf)
	w.answerTypes(jf)
	w.readsTypes(jf)
	w.outcomeTypes(jf)
	w.flowType(jf)
}

// enumTypes emits each enum type, its constants and its values in spec order.
func (w *workflow) enumTypes(jf *jen.File) {
	for _, e := range w.enums {
		jf.Commentf("%s is a value of %s.", e.name, e.doc)
		jf.Type().Id(e.name).String()
		jf.Line()
		jf.Const().DefsFunc(func(g *jen.Group) {
			for _, v := range e.values {
				if v.Title != "" {
					g.Comment(v.Title)
				}
				g.Id(w.enumConst(e, v.Value)).Id(e.name).Op("=").Lit(v.Value)
			}
		})
		jf.Line()
		jf.Commentf("%s lists the values in spec order; the continuation codec stores a value as its position.", w.enumValues(e))
		jf.Var().Id(w.enumValues(e)).Op("=").Index().Id(e.name).ValuesFunc(func(g *jen.Group) {
			for _, v := range e.values {
				g.Id(w.enumConst(e, v.Value))
			}
		})
		jf.Line()
	}
}

// argsType emits the arguments struct.
func (w *workflow) argsType(jf *jen.File) {
	t, n := w.t, w.n
	jf.Commentf("%s are the arguments of %s %s, validated on every round.", n.args(), t.Kind, t.Name)
	jf.Type().Id(n.args()).StructFunc(func(g *jen.Group) {
		for _, a := range t.Arguments {
			tag := a.Name
			if optional(a) {
				tag += ",omitempty"
			}
			g.Comment(fieldDoc(field(a.Name), a, "argument"))
			g.Id(field(a.Name)).Add(w.goType(a, optional(a))).Tag(map[string]string{"json": tag})
		}
	})
	jf.Line()
}

// continuationType emits the continuation struct.
func (w *workflow) continuationType(jf *jen.File) {
	t, n := w.t, w.n
	where := "sealed in requestState"
	if t.Continuation.Storage == vocab.Reference {
		where = "kept server-side; requestState holds only a reference"
	}
	jf.Commentf("%s is what %s carries between rounds (%s). Checks and effects set it.", n.continuation(), t.Name, where)
	jf.Type().Id(n.continuation()).StructFunc(func(g *jen.Group) {
		for _, f := range t.Continuation.Fields {
			doc := fieldDoc(field(f.Name), f, "continuation field")
			if f.Sensitive {
				doc += " (sensitive: never sealed into the token)"
			}
			g.Comment(doc)
			g.Id(field(f.Name)).Add(w.goType(f, false))
		}
	})
	jf.Line()
}

// answerTypes emits a struct per form answer.
func (w *workflow) answerTypes(jf *jen.File) {
	n := w.n
	for _, q := range w.requests() {
		if q.Kind != vocab.Elicit {
			continue
		}
		jf.Commentf("%s is the validated answer to input request %q.", n.answer(q.Key), q.Key)
		jf.Type().Id(n.answer(q.Key)).StructFunc(func(g *jen.Group) {
			for _, f := range q.Fields {
				g.Comment(fieldDoc(field(f.Name), f, "form field"))
				g.Id(field(f.Name)).Add(w.goType(f, optional(f)))
			}
		})
		jf.Line()
	}
}

// outcomeTypes emits the outcome type of each check that has outcomes.
func (w *workflow) outcomeTypes(jf *jen.File) {
	t, n := w.t, w.n
	for _, s := range t.States {
		if s.Check == nil || len(s.Outcomes) == 0 || w.firstCheckState(s.Check.Name) != s {
			continue
		}
		typ := n.outcome(s.Check.Name)
		jf.Commentf("%s is what check %s decided; each outcome leads to its own state.", typ, s.Check.Name)
		jf.Type().Id(typ).Uint8()
		jf.Line()
		jf.Const().DefsFunc(func(g *jen.Group) {
			for i, b := range s.Outcomes {
				g.Commentf("%s leads to state %s.", n.outcomeConst(s.Check.Name, b.Name), b.Target.Name)
				g.Id(n.outcomeConst(s.Check.Name, b.Name)).Id(typ).Op("=").Lit(i + 1)
			}
		})
		jf.Line()
	}
}

// flowType emits the flow struct handlers see, and its methods.
func (w *workflow) flowType(jf *jen.File) {
	t, n := w.t, w.n
	jf.Commentf("%s is one workflow of %s as handler methods see it: the call, the", n.flow(), t.Name)
	jf.Comment("arguments, the continuation and the answers given so far.")
	jf.Type().Id(n.flow()).StructFunc(func(g *jen.Group) {
		g.Comment("Call identifies the caller, the workflow and the round.")
		g.Id("Call").Op("*").Qual(pkgMRTR, "Call")
		g.Comment("Args are the call's arguments.")
		g.Id("Args").Id(n.args())
		g.Comment("Continuation is carried between rounds.")
		g.Id("Continuation").Id(n.continuation())
		if len(t.Continuation.Transient) > 0 {
			g.Comment("Transient holds the values templates show that are never carried: each is")
			g.Comment("computed by its handler method before a render.")
			g.Id("Transient").Id(w.transientType())
		}
		for _, s := range t.States {
			for _, q := range s.Requests {
				askers := t.AskersOf(q)
				if askers[0] != s {
					continue // a question, declared where it is first asked
				}
				if len(askers) > 1 {
					g.Commentf("%s answers question %q (states %s); nil until given.", field(q.Key), q.Key, stateNames(askers))
				} else {
					g.Commentf("%s answers input request %q (state %s); nil until given.", field(q.Key), q.Key, s.Name)
				}
				g.Id(field(q.Key)).Add(w.answerType(q))
			}
		}
		g.Line()
		g.Id("state").Id(n.state())
		for _, s := range w.gates() {
			g.Commentf("%s is set once gate %s is confirmed: the continuation carries what it confirmed.", passedField(s), s.Name)
			g.Id(passedField(s)).Bool()
		}
		w.askAgainFields(g)
		if len(t.Continuation.Transient) > 0 {
			g.Comment("transientFor is the state Transient was computed for and not yet rendered (0: none).")
			g.Id("transientFor").Uint16()
		}
	})
	jf.Line()
	jf.Comment("State returns the state the workflow is in.")
	jf.Func().Params(jen.Id("f").Op("*").Id(n.flow())).Id("State").Params().Id(n.state()).Block(jen.Return(jen.Id("f").Dot("state")))
	jf.Line()
}

// enumValues is the variable listing an enum type's values:
// closeSupportTicketCloseReasonValues, httpServerLevelValues.
func (w *workflow) enumValues(e *enumType) string {
	return w.n.lower() + strings.TrimPrefix(e.name, w.n.base) + "Values"
}

// answerType is the Go type of the answer to an input request.
func (w *workflow) answerType(q *spec.InputRequest) *jen.Statement {
	switch q.Kind {
	case vocab.Sample:
		return jen.Op("*").Qual(pkgMRTR, "Sampled")
	case vocab.Roots:
		return jen.Op("*").Qual(pkgMRTR, "RootList")
	case vocab.ElicitURL:
		return jen.Op("*").Qual(pkgMRTR, "URLStep")
	}
	return jen.Op("*").Id(w.n.answer(q.Key))
}

// firstCheckState returns the first state running a check (a check used in
// several states is one handler method and one outcome type).
func (w *workflow) firstCheckState(check string) *spec.State {
	for _, s := range w.t.States {
		if s.Check != nil && s.Check.Name == check {
			return s
		}
	}
	return nil
}

// stateNames is "a, b and c".
func stateNames(states []*spec.State) string {
	var names []string
	for _, s := range states {
		names = append(names, s.Name)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// siteFormEnums gives the fields of states' own forms of a question
// (spec.State.Forms) the enum types of the question's fields: a narrowed
// enum offers fewer values but answers with the one type.
func (w *workflow) siteFormEnums() {
	for _, s := range w.t.States {
		for key, form := range s.Forms {
			q := w.t.Question(key)
			for _, f := range form.Fields {
				u := q.Field(f.Name)
				if u == nil {
					continue
				}
				if et, ok := w.enumOf[u]; ok {
					w.enumOf[f] = et
				}
				if f.Items != nil && u.Items != nil {
					if et, ok := w.enumOf[u.Items]; ok {
						w.enumOf[f.Items] = et
					}
				}
			}
		}
	}
}
