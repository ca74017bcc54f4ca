package generator

import (
	"fmt"
	"slices"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
)

const pkgFormat = "github.com/mrtrgen/mrtrgen/mrtr/format"

// hasSections reports whether tpl has a section ({?name} … {/name}).
func hasSections(tpl *spec.Template) bool {
	for _, p := range tpl.Parts {
		if p.Open != nil {
			return true
		}
	}
	return false
}

// formatted is the text of value v of field fd (nil for sampled text,
// roots and the workflow id) written with format f. The type was checked
// by the loader (template-format).
func (w *workflow) formatted(ref *spec.TemplateRef, fd *spec.Field, v *jen.Statement) (value, guard *jen.Statement) {
	f := ref.Format
	places := jen.Lit(-1)
	if f.Arg != "" && (f.Name == "decimal" || f.Name == "percent") {
		places = jen.Lit(int(f.Arg[0] - '0'))
	}
	float := func() *jen.Statement {
		if fd != nil && fd.Type == spec.TypeInteger {
			return jen.Float64().Call(v)
		}
		return v
	}
	switch f.Name {
	case "int":
		return jen.Qual(pkgFormat, "Int").Call(v), nil
	case "decimal":
		return jen.Qual(pkgFormat, "Decimal").Call(float(), places), nil
	case "percent":
		return jen.Qual(pkgFormat, "Percent").Call(float(), places), nil
	case "duration":
		unit := f.Arg
		if unit == "" {
			unit = "s"
		}
		return jen.Qual(pkgFormat, "Duration").Call(jen.Qual(pkgFormat, "Seconds").Call(float(), jen.Lit(unit))), nil
	case "money":
		currency := jen.Lit(f.Arg)
		if f.ArgRef != nil {
			currency, guard = w.refValue(f.ArgRef)
		}
		return jen.Qual(pkgFormat, "Money").Call(v, currency), guard
	case "date":
		return jen.Qual(pkgFormat, "Date").Call(v), nil
	case "datetime":
		return jen.Qual(pkgFormat, "DateTime").Call(v), nil
	case "title":
		return w.titleOf(fd, v, false), nil
	case "list":
		if fd == nil { // roots
			return jen.Qual("strings", "Join").Call(v, jen.Lit(", ")), nil
		}
		return w.titleOf(fd.Items, v, true), nil
	}
	panic("generator: unknown format " + f.Name)
}

// titleOf writes enum value v of field e (or the list v of such values) by
// its titles: the spec's titles of a fixed enum, the offered options'
// titles of a dynamic one, the values of anything else.
func (w *workflow) titleOf(e *spec.Field, v *jen.Statement, list bool) *jen.Statement {
	switch {
	case e != nil && e.Type == spec.TypeOption:
		return implX("JoinTitles").Call(v)
	case e != nil && e.Dynamic() && e.Source != nil && e.Source.Items != nil && e.Source.Items.Type == spec.TypeOption:
		opts := jen.Id("f").Dot("Continuation").Dot(field(e.Source.Name))
		if list {
			return implX("OptionTitles").Call(v, opts)
		}
		return implX("OptionTitle").Call(v, opts)
	case e != nil && e.Type == spec.TypeEnum && !e.Dynamic():
		titles := jen.Dict{}
		for _, ev := range e.Values {
			if ev.Title != "" {
				titles[jen.Lit(ev.Value)] = jen.Lit(ev.Title)
			}
		}
		m := jen.Nil()
		if len(titles) > 0 {
			m = jen.Map(jen.String()).String().Values(titles)
		}
		if list {
			return jen.Qual(pkgFormat, "Titles").Call(v, m)
		}
		return jen.Qual(pkgFormat, "Title").Call(v, m)
	}
	if list {
		return jen.Qual(pkgImpl, "Join").Call(v)
	}
	return jen.String().Call(v)
}

// refSet is the condition under which the value a section names is set:
// an answer given, an optional value present, a list or a text not empty,
// a continuation field not its zero value (nil: always).
func (w *workflow) refSet(ref *spec.TemplateRef) *jen.Statement {
	f := jen.Id("f")
	and := func(a, b *jen.Statement) *jen.Statement {
		switch {
		case a == nil:
			return b
		case b == nil:
			return a
		}
		return a.Op("&&").Add(b)
	}
	notZero := func(fd *spec.Field, v *jen.Statement, opt bool) *jen.Statement {
		if fd.Type == spec.TypeArray {
			return jen.Len(v).Op(">").Lit(0)
		}
		if opt {
			g := v.Clone().Op("!=").Nil()
			if fd.Type == spec.TypeString || fd.Type == spec.TypeEnum {
				g = g.Op("&&").Add(wire(fd, jen.Op("*").Add(v.Clone()))).Op("!=").Lit("")
			}
			return g
		}
		switch fd.Type {
		case spec.TypeString, spec.TypeEnum:
			return wire(fd, v.Clone()).Op("!=").Lit("")
		}
		return nil
	}
	switch ref.Kind {
	case spec.RefArgument:
		a := w.t.Argument(ref.Path[0])
		return notZero(a, f.Clone().Dot("Args").Dot(field(a.Name)), optional(a))
	case spec.RefContinuation, spec.RefTransient:
		c := w.t.RefField(ref, nil)
		v := f.Clone().Dot(refGroup(ref)).Dot(field(c.Name))
		switch c.Type {
		case spec.TypeInteger, spec.TypeNumber:
			return wire(c, v).Op("!=").Lit(0)
		case spec.TypeBoolean:
			return wire(c, v)
		}
		return notZero(c, v, false)
	case spec.RefFormField:
		q := w.request(ref.Path[0])
		fd := q.Field(ref.Path[1])
		ans := f.Clone().Dot(field(q.Key))
		return and(ans.Clone().Op("!=").Nil(), notZero(fd, ans.Clone().Dot(field(fd.Name)), optional(fd)))
	case spec.RefSampled:
		ans := f.Clone().Dot(field(ref.Path[0]))
		return ans.Clone().Op("!=").Nil().Op("&&").Add(ans.Clone().Dot("Text")).Op("!=").Lit("")
	case spec.RefRoots:
		ans := f.Clone().Dot(field(ref.Path[0]))
		return ans.Clone().Op("!=").Nil().Op("&&").Len(ans.Clone().Dot("URIs")).Op(">").Lit(0)
	case spec.RefAnswer:
		return f.Clone().Dot(field(ref.Path[0])).Op("!=").Nil()
	}
	return nil
}

// sectionedFuncBody writes the body of a template function with sections:
// a section is an if block on its value being set, and a placeholder
// inside a section on its own value needs no guard of its own.
func (w *workflow) sectionedFuncBody(g *jen.Group, tpl *spec.Template) {
	g.Var().Id("b").Qual("strings", "Builder")
	w.sectionParts(g, tpl, tpl.Parts, nil)
	g.Return(jen.Id("b").Dot("String").Call())
}

// sectionParts writes parts up to the end of the section they are in and
// returns how many it used (the Close included). answered are the answers
// the sections around them are on ({?key}): there they are given.
func (w *workflow) sectionParts(g *jen.Group, tpl *spec.Template, parts []spec.TemplatePart, answered []string) int {
	for i := 0; i < len(parts); i++ {
		p := parts[i]
		switch {
		case p.Close:
			return i + 1
		case p.Open != nil:
			inner := answered
			if p.Open.Kind == spec.RefAnswer && !p.Not {
				inner = append(slices.Clip(answered), p.Open.Path[0])
			}
			var used int
			body := func(in *jen.Group) { used = w.sectionParts(in, tpl, parts[i+1:], inner) }
			set := w.refSet(p.Open)
			switch {
			case p.Each:
				list, guard := w.listValue(p.Open)
				loop := jen.For(jen.List(jen.Id("_"), jen.Id("it")).Op(":=").Range().Add(list)).BlockFunc(body)
				if guard != nil && !slices.Contains(answered, p.Open.Path[0]) {
					g.If(guard).Block(loop)
				} else {
					g.Add(loop)
				}
			case p.Not && set == nil:
				body(&jen.Group{}) // always set: the text is never shown
			case p.Not:
				g.If(jen.Op("!").Parens(set)).BlockFunc(body)
			case set != nil:
				g.If(set).BlockFunc(body)
			default:
				g.BlockFunc(body)
			}
			i += used
		case p.Ref != nil:
			value, guard := w.refValue(p.Ref)
			if tpl.Guarded(p.Ref) && (p.Ref.Format == nil || p.Ref.Format.ArgRef == nil || tpl.Guarded(p.Ref.Format.ArgRef)) {
				guard = nil // the section around it is shown only when it is set
			}
			write := jen.Id("b").Dot("WriteString").Call(value)
			if guard != nil {
				g.If(guard).Block(write)
			} else {
				g.Add(write)
			}
		default:
			g.Id("b").Dot("WriteString").Call(jen.Lit(p.Literal))
		}
	}
	return len(parts)
}

// formattedRef is refValue for a placeholder with a format: the value
// written with it, and the condition under which it is there.
func (w *workflow) formattedRef(ref *spec.TemplateRef) (value, guard *jen.Statement) {
	f := jen.Id("f")
	var fd *spec.Field
	var v *jen.Statement
	opt := false
	switch ref.Kind {
	case spec.RefWorkflowID:
		v = f.Clone().Dot("Call").Dot("WorkflowID")
	case spec.RefArgument:
		fd = w.t.Argument(ref.Path[0])
		v, opt = f.Clone().Dot("Args").Dot(field(fd.Name)), optional(fd)
	case spec.RefContinuation, spec.RefTransient:
		fd = w.t.RefField(ref, nil)
		v = f.Clone().Dot(refGroup(ref)).Dot(field(fd.Name))
	case spec.RefFormField:
		q := w.request(ref.Path[0])
		fd = q.Field(ref.Path[1])
		ans := f.Clone().Dot(field(q.Key))
		v, opt, guard = ans.Clone().Dot(field(fd.Name)), optional(fd), ans.Clone().Op("!=").Nil()
	case spec.RefSampled:
		ans := f.Clone().Dot(field(ref.Path[0]))
		v, guard = ans.Clone().Dot("Text"), ans.Clone().Op("!=").Nil()
	case spec.RefRoots:
		ans := f.Clone().Dot(field(ref.Path[0]))
		v, guard = ans.Clone().Dot("URIs"), ans.Clone().Op("!=").Nil()
	case spec.RefItem:
		fd, v = w.itemField(ref.Each), jen.Id("it")
	}
	v, guard = presentValue(fd, v, opt, guard)
	value, argGuard := w.formatted(ref, fd, v)
	if argGuard != nil {
		if guard != nil {
			guard = guard.Op("&&").Add(argGuard)
		} else {
			guard = argGuard
		}
	}
	return value, guard
}

// listValue is the list a per-item section ({*name}) repeats its text
// for, and the condition under which it is there (an answer given).
func (w *workflow) listValue(ref *spec.TemplateRef) (list, guard *jen.Statement) {
	f := jen.Id("f")
	switch ref.Kind {
	case spec.RefArgument:
		return f.Dot("Args").Dot(field(w.t.Argument(ref.Path[0]).Name)), nil
	case spec.RefContinuation, spec.RefTransient:
		return f.Dot(refGroup(ref)).Dot(field(w.t.RefField(ref, nil).Name)), nil
	case spec.RefFormField:
		q := w.request(ref.Path[0])
		ans := f.Dot(field(q.Key))
		return ans.Clone().Dot(field(q.Field(ref.Path[1]).Name)), ans.Clone().Op("!=").Nil()
	case spec.RefRoots:
		ans := f.Dot(field(ref.Path[0]))
		return ans.Clone().Dot("URIs"), ans.Clone().Op("!=").Nil()
	}
	panic(fmt.Sprintf("generator: {*%s} names no list", ref.Name()))
}

// itemField is the field of the items of the list a per-item section
// repeats its text for (nil for roots: their URIs are strings).
func (w *workflow) itemField(list *spec.TemplateRef) *spec.Field {
	if list.Kind == spec.RefRoots {
		return nil
	}
	switch list.Kind {
	case spec.RefArgument:
		return w.t.Argument(list.Path[0]).Items
	case spec.RefContinuation, spec.RefTransient:
		return w.t.RefField(list, nil).Items
	}
	return w.request(list.Path[0]).Field(list.Path[1]).Items
}

// itemValue is the text of the item of a per-item section ({.}): an
// option by its title (what the user was shown), a root by its URI.
func (w *workflow) itemValue(ref *spec.TemplateRef) *jen.Statement {
	it := jen.Id("it")
	fd := w.itemField(ref.Each)
	switch {
	case fd == nil:
		return it
	case fd.Type == spec.TypeOption:
		return jen.Qual("cmp", "Or").Call(it.Clone().Dot("Title"), it.Clone().Dot("Value"))
	case fd.Type == spec.TypeEnum && fd.Dynamic():
		return it // a value picked from options: a string already
	}
	return valueString(fd, it)
}

// refGroup is the flow's struct holding a continuation field or a
// transient value.
func refGroup(ref *spec.TemplateRef) string {
	if ref.Kind == spec.RefTransient {
		return "Transient"
	}
	return "Continuation"
}
