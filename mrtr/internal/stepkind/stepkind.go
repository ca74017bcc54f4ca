// Package stepkind says which of the fields of an mrtrimpl.Step are set.
// Only the engine (package mrtr, which makes Steps in Round.Goto, Ask and
// Finish and reads them) and mrtrimpl (which declares Step) need it:
// generated code gets its Steps from the Round and never names a kind, so
// neither package exports it.
package stepkind

// Kind says which of Step's fields are set.
type Kind uint8

// The kinds of Step.
const (
	Goto   Kind = iota + 1 // Next and On: the state to go to along a transition
	Ask                    // Ask: the requests to send; the workflow stays
	Finish                 // Final: the result
)
