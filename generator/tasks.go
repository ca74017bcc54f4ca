package generator

import (
	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
)

// taskInfo is the descriptor's Task of a long-running tool (spec: task):
// &mrtrimpl.TaskInfo{Required, Start, Timeout, PollInterval, TTL}, the
// fields left at their zero value left out.
func (w *workflow) taskInfo(td *spec.TaskDecl) jen.Code {
	var d []pair
	set := func(name string, v jen.Code) { d = append(d, pair{jen.Id(name), v}) }
	if td.Required {
		set("Required", jen.True())
	}
	set("Start", jen.Uint16().Call(w.stateID(td.Start)))
	if td.Timeout.D > 0 {
		set("Timeout", durationCode(td.Timeout.D))
	}
	if td.PollInterval.D > 0 {
		set("PollInterval", durationCode(td.PollInterval.D))
	}
	if td.TTL.D > 0 {
		set("TTL", durationCode(td.TTL.D))
	}
	return jen.Op("&").Qual(pkgImpl, "TaskInfo").Add(oneLine(d...))
}
