package generator

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
)

// ScaffoldHeader opens every scaffold file: it says who owns the file.
const ScaffoldHeader = "Written by mrtrgen as a starting point. This file is yours: edit it freely;\nmrtrgen never overwrites it (delete it to get a fresh scaffold)."

func stubName(t *spec.Tool) string { return fileBase(t) + "_handler.go" }

// handlerElsewhere says which hand-written file declares the handler
// type, when it is not the scaffold's ("" when none does): the handler
// may live in any file of the package, and a scaffold next to it would
// declare its type a second time.
func (g *gen) handlerElsewhere(w *workflow) string {
	impl := g.opts.UserCode.implType(w.n)
	if impl == "" || filepath.Base(g.opts.UserCode.Types[impl]) == stubName(w.t) {
		return ""
	}
	return impl + " is declared in " + filepath.Base(g.opts.UserCode.Types[impl])
}

// scaffoldExists reports whether the scaffold name is on disk already.
func (g *gen) scaffoldExists(name string) bool {
	return g.opts.ScaffoldExists != nil && g.opts.ScaffoldExists(g.out(name))
}

// stubFile is <tool>_handler.go: a compiling implementation of the handler
// whose methods say what to do and refuse until they are written. It is
// written only when the file does not exist.
func (g *gen) stubFile(w *workflow) (File, error) {
	t := w.t
	n := w.n
	name := stubName(t)
	elsewhere := g.handlerElsewhere(w)
	if elsewhere != "" || g.scaffoldExists(name) {
		// Kept as it is; the names a fresh scaffold declares still take
		// part in the collision check.
		decls := []string{n.base + "Impl"}
		for _, m := range w.handlerMethods() {
			decls = append(decls, n.base+"Impl."+m.name)
		}
		if elsewhere != "" {
			decls = nil // the user's names, not ours
		}
		return File{Path: g.out(name), Kind: Scaffold, decls: decls, elsewhere: elsewhere}, nil
	}
	jf := jen.NewFile(g.f.Package)
	for _, line := range strings.Split(ScaffoldHeader, "\n") {
		jf.HeaderComment(line) // line comments: jen makes a multi-line one a /* */ block
	}
	jf.ImportName(pkgMRTR, "mrtr")
	impl := n.base + "Impl"
	jf.Commentf("%s implements %s for %s %s.", impl, n.handler(), t.Kind, t.Name)
	jf.Comment("Give it what the methods need: a database handle, API clients.")
	jf.Type().Id(impl).Struct()
	jf.Line()
	jf.Var().Id("_").Id(n.handler()).Op("=").Parens(jen.Op("*").Id(impl)).Parens(jen.Nil())
	jf.Line()
	for _, m := range w.handlerMethods() {
		for _, d := range m.doc {
			jf.Comment(d)
		}
		todo := jen.Qual("errors", "New").Call(jen.Lit(fmt.Sprintf("%s: %s is not implemented yet", t.Name, m.name)))
		var body []jen.Code
		switch m.kind {
		case "authorize":
			body = []jen.Code{jen.Comment("TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden."), jen.Return(jen.Qual(pkgMRTR, "Forbidden").Call(jen.Lit(t.Name + ": Authorize is not implemented yet")))}
		case "check":
			body = []jen.Code{jen.Commentf("TODO: check %s; set f.Continuation fields later states need.", m.specName)}
			if len(m.outcomes) > 0 {
				body = append(body, jen.Return(jen.Lit(0), todo))
			} else {
				body = append(body, jen.Return(todo))
			}
		case "effect":
			body = []jen.Code{jen.Commentf("TODO: perform %s; record its results in f.Continuation.", m.specName), jen.Return(todo)}
		case "output":
			body = []jen.Code{jen.Commentf("TODO: fill out with the result of %s (from f.Continuation, f.Args or your records).", m.specName), jen.Return(todo)}
		case "content":
			body = []jen.Code{jen.Commentf("TODO: return the bytes of %s.", m.specName), jen.Return(jen.Nil(), todo)}
		case "transient":
			body = []jen.Code{jen.Commentf("TODO: compute %s from f.Args and f.Continuation.", m.specName), jen.Var().Id("v").Add(m.results[0]), jen.Return(jen.Id("v"), todo)}
		case "complete":
			body = []jen.Code{jen.Comment("TODO: return the values that complete value, best first."), jen.Return(jen.Nil(), todo)}
		case "approvers":
			body = []jen.Code{jen.Commentf("TODO: return the principals of role %q who may approve this action.", m.role), jen.Return(jen.Nil(), todo)}
		case "validator":
			body = []jen.Code{jen.Commentf("TODO: validate value; return nil when it is acceptable, mrtr.Invalid(\"...\") saying what is wrong when it is not."), jen.Return(todo)}
		}
		jf.Func().Params(jen.Id("h").Op("*").Id(impl)).Id(m.name).Params(m.params...).Params(m.results...).Block(body...)
		jf.Line()
	}
	b, decls, err := render(name, jf)
	return File{Path: g.out(name), Kind: Scaffold, Content: b, decls: decls}, err
}
