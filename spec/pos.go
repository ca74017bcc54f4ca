package spec

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Pos is a position in a spec file. Line and Col are 1-based; a zero Line
// means "the whole file".
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Severity ranks a diagnostic.
type Severity int

const (
	Warning Severity = iota + 1
	Error
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one problem found in a spec: where, what, which rule, and
// how to fix it.
type Diagnostic struct {
	Pos      Pos
	Severity Severity
	Rule     string // stable id, e.g. "yaml-syntax", "schema", "unreachable-state"
	Message  string
	Hint     string // one line: what to do about it
}

func (d Diagnostic) String() string {
	s := fmt.Sprintf("%s: %s: %s [%s]", d.Pos, d.Severity, d.Message, d.Rule)
	return s
}

// Diagnostics is a list of problems; as an error it reports all of them.
type Diagnostics []Diagnostic

func (ds Diagnostics) Error() string {
	var b strings.Builder
	for i, d := range ds {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.String())
	}
	return b.String()
}

// HasErrors reports whether any diagnostic is an error (not a warning).
func (ds Diagnostics) HasErrors() bool {
	return slices.ContainsFunc(ds, func(d Diagnostic) bool { return d.Severity == Error })
}

// Sort orders diagnostics by file, line, column, rule and message, so output
// is stable whatever order the checks ran in.
func (ds Diagnostics) Sort() {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.Pos.File, b.Pos.File),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Col, b.Pos.Col),
			cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Message, b.Message),
		)
	})
}
