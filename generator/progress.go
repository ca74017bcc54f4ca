package generator

import (
	"github.com/dave/jennifer/jen"
)

// Progress (progress: true on a check or effect): the handler method gets
// a progress reporter, *mrtr.Progress, as its last parameter; generated
// code passes the reporter of the request running the state
// (mrtrimpl.X.ProgressOf). Methods of states without it keep their
// signatures.

const progressDoc = "The state is slow (progress: true): report with p.Report(ctx, progress, total, message), which sends notifications/progress on the request's progressToken (nothing when it has none, or once the request was answered)."

// slow reports whether a state running check or effect method name
// declares progress: the method then gets the reporter.
func (w *workflow) slow(name string) bool {
	for _, s := range w.t.States {
		if !s.Progress {
			continue
		}
		if (s.Check != nil && s.Check.Name == name) || (s.Effect != nil && s.Effect.Name == name) {
			return true
		}
	}
	return false
}

// methodParams are the parameters of check or effect method name.
func (w *workflow) methodParams(name string, ctx, flow jen.Code) []jen.Code {
	if w.slow(name) {
		return []jen.Code{ctx, flow, jen.Id("p").Op("*").Qual(pkgMRTR, "Progress")}
	}
	return []jen.Code{ctx, flow}
}

// methodArgs are the arguments generated code calls method name with.
func (w *workflow) methodArgs(name string) []jen.Code {
	if w.slow(name) {
		return []jen.Code{jen.Id("ctx"), jen.Id("f"), implX("ProgressOf").Call(jen.Id("ctx"))}
	}
	return []jen.Code{jen.Id("ctx"), jen.Id("f")}
}
