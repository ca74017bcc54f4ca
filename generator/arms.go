package generator

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// How the generated tests take the arms of value branches. A branch takes
// its arm from data, so a walk through an arm must send (or, for a
// continuation field, have the fake set) a value that takes it, and every
// branch on the same value must agree with it along the walk. Each value
// branches route on is a source; its values fall into cells, one per way
// the branches on it go (for amount > 500 and amount ≤ 500: two cells),
// each with a representative value. A walk carries, per source, the cells
// still possible; an arm narrows them, and a walk whose cells run out is
// not taken. The data of a walk is one armCell per source it narrowed.

// maxCells bounds the cells of one source (a bit each in a walk's masks):
// an enum with more values than this has its later values walked only
// through the default.
const maxCells = 64

// source is a value that value branches route on.
type source struct {
	on       spec.ValueRef
	key      string // as the spec names it: "amount", "refund.amount"
	branches []*spec.State
	cells    []armCell
	def      int // the fixture workflow's armCell
}

// armCell is one way the branches on a source go, and a value that takes it.
type armCell struct {
	value  any // float64, int64, bool or string (an enum's); nil when absent
	absent bool
	arms   []int // per branch of the source, the index of its arm; -1 for the default
}

// armModel is the sources of a workflow and which source each branch
// state routes on.
type armModel struct {
	sources []*source
	of      map[string]int // branch state name → source index
}

// arms returns the workflow's arm model (computed once).
func (w *workflow) arms() *armModel {
	if w.armsCache != nil {
		return w.armsCache
	}
	m := &armModel{of: map[string]int{}}
	byKey := map[string]int{}
	for _, s := range w.t.States {
		b := s.Branch
		if b == nil || b.On.Field == nil {
			continue
		}
		i, ok := byKey[b.On.Name()]
		if !ok {
			i = len(m.sources)
			byKey[b.On.Name()] = i
			m.sources = append(m.sources, &source{on: b.On, key: b.On.Name()})
		}
		m.sources[i].branches = append(m.sources[i].branches, s)
		m.of[s.Name] = i
	}
	for _, src := range m.sources {
		w.makeCells(src)
	}
	w.armsCache = m
	return m
}

// armOf is the index of the arm of branch b that value v takes (-1: the
// default, or no arm).
func armOf(b *spec.ValueBranch, v any, absent bool) int {
	if absent {
		return -1
	}
	for i, a := range b.Arms() {
		switch {
		case a.Case != nil && a.Case.Value == fmt.Sprint(v):
			return i
		case a.Range != nil && a.Range.Contains(toFloat(v)):
			return i
		}
	}
	return -1
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	case int:
		return float64(x)
	}
	return math.NaN()
}

// fixtureValue is the source's value in the fixture workflow, absent when
// the fixtures leave it out.
func (w *workflow) fixtureValue(src *source) (any, bool) {
	f := src.on.Field
	if src.on.Kind == spec.RefArgument && !f.Required {
		return nil, true // the fixture arguments are the required ones
	}
	v, err := exampleValue(f, 0)
	if err != nil {
		return nil, src.on.Kind != spec.RefContinuation
	}
	return v, false
}

// makeCells finds the cells of a source: candidate values (the fixture's
// first, so that its armCell is represented by it), grouped by the arms they
// take.
func (w *workflow) makeCells(src *source) {
	f := src.on.Field
	type candidate struct {
		v      any
		absent bool
	}
	var cands []candidate
	fv, fabsent := w.fixtureValue(src)
	cands = append(cands, candidate{fv, fabsent})
	switch f.Type {
	case spec.TypeEnum:
		for _, v := range f.Values {
			cands = append(cands, candidate{v: v.Value})
		}
	case spec.TypeBoolean:
		cands = append(cands, candidate{v: false}, candidate{v: true})
	case spec.TypeNumber, spec.TypeInteger:
		for _, x := range numberCandidates(f, src.branches) {
			if f.Type == spec.TypeInteger {
				cands = append(cands, candidate{v: int64(x)})
			} else {
				cands = append(cands, candidate{v: x})
			}
		}
	}
	if w.mayBeAbsent(src) {
		cands = append(cands, candidate{absent: true})
	}
	seen := map[string]int{}
	for _, c := range cands {
		if c.v == nil && !c.absent {
			continue
		}
		var arms []int
		for _, s := range src.branches {
			arms = append(arms, armOf(s.Branch, c.v, c.absent))
		}
		sig := fmt.Sprint(arms)
		if _, dup := seen[sig]; dup || len(src.cells) == maxCells {
			continue
		}
		seen[sig] = len(src.cells)
		src.cells = append(src.cells, armCell{value: c.v, absent: c.absent, arms: arms})
	}
	src.def = 0 // the fixture's candidate came first
}

// mayBeAbsent reports whether a walk can leave the source out: an optional
// argument or form field (the answer of an optional request is left out
// only for clients that cannot answer it, which walks do not play).
func (w *workflow) mayBeAbsent(src *source) bool {
	return src.on.Kind != spec.RefContinuation && optional(src.on.Field)
}

// numberCandidates are values on and around every bound of the ranges of
// the branches, within the field's minimum and maximum: every armCell of the
// ranges has one.
func numberCandidates(f *spec.Field, branches []*spec.State) []float64 {
	var bounds []float64
	for _, s := range branches {
		for _, r := range s.Branch.Ranges {
			for _, b := range []*spec.Bound{r.Lower, r.Upper} {
				if b != nil {
					bounds = append(bounds, b.Value)
				}
			}
		}
	}
	if f.Minimum != nil {
		bounds = append(bounds, *f.Minimum)
	}
	if f.Maximum != nil {
		bounds = append(bounds, *f.Maximum)
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	delta := 1.0
	if f.Type == spec.TypeNumber {
		for i := 1; i < len(bounds); i++ {
			delta = min(delta, (bounds[i]-bounds[i-1])/2)
		}
	}
	var out []float64
	for _, b := range bounds {
		for _, x := range []float64{b - delta, b, b + delta} {
			if f.Type == spec.TypeInteger {
				x = math.Round(x)
			}
			if (f.Minimum == nil || x >= *f.Minimum) && (f.Maximum == nil || x <= *f.Maximum) {
				out = append(out, x)
			}
		}
	}
	if len(out) == 0 {
		out = append(out, 0)
	}
	return out
}

// masks are, per source, the cells a walk may still take.
type masks []uint64

func (m *armModel) all() masks {
	out := make(masks, len(m.sources))
	for i, src := range m.sources {
		out[i] = uint64(1)<<len(src.cells) - 1
		if len(src.cells) == 64 {
			out[i] = math.MaxUint64
		}
	}
	return out
}

// take narrows ms by edge e; false when no armCell is left for it.
func (m *armModel) take(ms masks, e spec.Edge) (masks, bool) {
	i, ok := m.of[e.From]
	if !ok {
		return ms, true
	}
	src := m.sources[i]
	bi := slices.IndexFunc(src.branches, func(s *spec.State) bool { return s.Name == e.From })
	b := src.branches[bi].Branch
	want := -1
	if label, ok := e.On.Case(); ok {
		want = slices.IndexFunc(b.Arms(), func(a spec.Arm) bool { return a.Label == label })
	}
	var allowed uint64
	for ci, c := range src.cells {
		if c.arms[bi] == want {
			allowed |= 1 << ci
		}
	}
	out := slices.Clone(ms)
	out[i] &= allowed
	return out, out[i] != 0
}

// choice is a armCell per source: the data of a walk.
type choice []int

// choose picks, per source, the fixture's armCell when the walk allows it,
// else the first armCell it allows.
func (m *armModel) choose(ms masks) choice {
	out := make(choice, len(m.sources))
	for i, src := range m.sources {
		out[i] = src.def
		if ms[i]&(1<<src.def) == 0 {
			for ci := range src.cells {
				if ms[i]&(1<<ci) != 0 {
					out[i] = ci
					break
				}
			}
		}
	}
	return out
}

// bfsArms is bfs through arms: the shortest takeable walk from a state to
// one done accepts with the cells left, starting with cells ms.
func (w *workflow) bfsArms(from string, ms masks, done func(string, masks) bool) ([]spec.Edge, masks, bool) {
	m := w.arms()
	type item struct {
		state string
		ms    masks
		path  []spec.Edge
	}
	key := func(s string, ms masks) string { return s + fmt.Sprint([]uint64(ms)) }
	seen := map[string]bool{key(from, ms): true}
	queue := []item{{state: from, ms: ms}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if done(it.state, it.ms) {
			return it.path, it.ms, true
		}
		s := w.t.State(it.state)
		if s == nil {
			continue
		}
		for _, e := range s.Edges() {
			if !w.takeable(s, e.On) {
				continue
			}
			next, ok := m.take(it.ms, e)
			if !ok || seen[key(e.To, next)] {
				continue
			}
			seen[key(e.To, next)] = true
			queue = append(queue, item{state: e.To, ms: next, path: append(slices.Clone(it.path), e)})
		}
	}
	return nil, nil, false
}

// armsCode is the mrtrtest.Arms literal of a choice (nil for the fixture
// workflow's).
func (w *workflow) armsCode(c choice) jen.Code {
	m := w.arms()
	args, fields, values := jen.Dict{}, map[string]jen.Dict{}, jen.Dict{}
	for i, src := range m.sources {
		if c[i] == src.def {
			continue
		}
		cl := src.cells[c[i]]
		v := jen.Code(jen.Nil())
		if !cl.absent {
			v = jsonValueCode(cl.value)
		}
		switch src.on.Kind {
		case spec.RefArgument:
			args[jen.Lit(src.on.Path[0])] = v
		case spec.RefFormField:
			key := src.on.Path[0]
			if fields[key] == nil {
				fields[key] = jen.Dict{}
			}
			fields[key][jen.Lit(src.on.Path[1])] = v
		case spec.RefContinuation:
			values[jen.Lit(src.on.Path[0])] = jen.Lit(c[i] + 1)
		}
	}
	d := jen.Dict{}
	if len(args) > 0 {
		d[jen.Id("Args")] = jen.Map(jen.String()).Any().Values(args)
	}
	if len(fields) > 0 {
		fd := jen.Dict{}
		for key, f := range fields {
			fd[jen.Lit(key)] = jen.Values(f)
		}
		d[jen.Id("Fields")] = jen.Map(jen.String()).Map(jen.String()).Any().Values(fd)
	}
	if len(values) > 0 {
		d[jen.Id("Values")] = jen.Map(jen.String()).Uint8().Values(values)
	}
	if len(d) == 0 {
		return nil
	}
	return jen.Qual(pkgTest, "Arms").Values(d)
}

// jsonValueCode is a value as a JSON client sends it: a number, a boolean
// or a string.
func jsonValueCode(v any) jen.Code {
	switch x := v.(type) {
	case int64:
		return jen.Lit(int(x))
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return jen.Lit(x) // 501.0 stays a float for a number field
		}
		return jen.Lit(x)
	}
	return jen.Lit(v)
}

// continuationSources are the sources that are continuation fields: the
// fake sets them.
func (w *workflow) continuationSources() []*source {
	var out []*source
	for _, src := range w.arms().sources {
		if src.on.Kind == spec.RefContinuation {
			out = append(out, src)
		}
	}
	return out
}

func (w *workflow) fakeValuesName(src *source) string {
	return "fake" + w.n.base + spec.GoName(src.on.Path[0])
}

// fakeValues emits, per continuation source, the values the fake sets (one
// per cell).
func (w *workflow) fakeValues(jf *jen.File) {
	for _, src := range w.continuationSources() {
		f := src.on.Field
		var vals []jen.Code
		for _, c := range src.cells {
			if f.Type == spec.TypeEnum {
				vals = append(vals, jen.Id(w.enumConst(w.enumOf[f], fmt.Sprint(c.value))))
			} else {
				vals = append(vals, jsonValueCode(c.value))
			}
		}
		jf.Commentf("%s are the values the fake sets in continuation field %s, one for each way the", w.fakeValuesName(src), src.key)
		jf.Comment("value branches on it go: the walk's or the matrix's choice (mrtrtest.Fake.Value), from 1.")
		jf.Var().Id(w.fakeValuesName(src)).Op("=").Index().Add(w.goType(f, false)).Values(vals...)
		jf.Line()
	}
}

// valueSetters are the statements of a fake's check or effect that set the
// continuation fields value branches route on: those the spec says it
// sets, or, in a workflow that declares nothing, all of them (any check or
// effect may set any field).
func (w *workflow) valueSetters(method string) []jen.Code {
	var out []jen.Code
	declared := w.t.DeclaresSets()
	for _, src := range w.continuationSources() {
		name := src.on.Path[0]
		if declared && !slices.ContainsFunc(w.methodSets(method), func(sd *spec.SetDecl) bool { return sd.Field.Name == name }) {
			continue
		}
		out = append(out, jen.Id("f").Dot("Continuation").Dot(field(name)).Op("=").Id(w.fakeValuesName(src)).
			Index(jen.Id("h").Dot("fake").Dot("Value").Call(jen.Lit(src.key), jen.Lit(src.def+1)).Op("-").Lit(1)))
	}
	return out
}

// armAt is the edge branch state s takes with choice c.
func (w *workflow) armAt(s *spec.State, c choice) *spec.Edge {
	m := w.arms()
	i, ok := m.of[s.Name]
	if !ok {
		return nil
	}
	src := m.sources[i]
	bi := slices.IndexFunc(src.branches, func(b *spec.State) bool { return b.Name == s.Name })
	arm := src.cells[c[i]].arms[bi]
	for _, e := range s.Edges() {
		label, isCase := e.On.Case()
		if arm >= 0 && isCase && label == s.Branch.Arms()[arm].Label {
			return &e
		}
		if arm < 0 && e.On == vocab.Default {
			return &e
		}
	}
	return nil
}

// describeChoice names the data of a choice that differ from the fixture
// workflow's, for a variant's name: "refund.amount 501, channel voucher".
func (w *workflow) describeChoice(c choice) string {
	var parts []string
	for i, src := range w.arms().sources {
		if c[i] == src.def {
			continue
		}
		cl := src.cells[c[i]]
		v := "absent"
		if !cl.absent {
			v = fmt.Sprint(cl.value)
		}
		parts = append(parts, src.key+" "+v)
	}
	return strings.Join(parts, ", ")
}

// defaultChoice is the fixture workflow's cells.
func (m *armModel) defaultChoice() choice {
	out := make(choice, len(m.sources))
	for i, src := range m.sources {
		out[i] = src.def
	}
	return out
}

// variants are the workflows the fake takes by default with the data of
// each transition walk through other arms than the fixture workflow's,
// one per distinct data (mrtrtest.Fixtures.Variants): the matrix runs
// scenarios the fixture workflow does not reach on them, and runs whole on
// each of them.
func (w *workflow) variants(walks []walk) []jen.Code {
	m := w.arms()
	seen := map[string]bool{fmt.Sprint(m.defaultChoice()): true}
	var out []jen.Code
	for _, wk := range walks {
		key := fmt.Sprint(wk.arms)
		if seen[key] {
			continue
		}
		seen[key] = true
		path := w.pathWith(wk.arms)
		want := vocab.OutcomeSuccess
		if last := w.t.State(path[len(path)-1]); last != nil && last.Kind == vocab.StateTerminal {
			want = last.Outcome
		}
		d := jen.Dict{
			jen.Id("Name"):        jen.Lit(w.describeChoice(wk.arms)),
			jen.Id("WantOutcome"): finalOutcome(want),
		}
		args, answers, values := w.variantData(wk.arms)
		if args != nil {
			d[jen.Id("Args")] = args
		}
		if answers != nil {
			d[jen.Id("Answers")] = answers
		}
		if values != nil {
			d[jen.Id("Values")] = values
		}
		out = append(out, jen.Values(d))
	}
	return out
}

// variantData is a choice as a variant gives it: the whole arguments, the
// whole answers it changes, and the continuation values (nil for each the
// choice leaves as in the fixtures).
func (w *workflow) variantData(c choice) (args, answers, values jen.Code) {
	m := w.arms()
	argOver := map[string]*armCell{}
	fieldOver := map[string]map[string]*armCell{}
	vals := jen.Dict{}
	for i, src := range m.sources {
		if c[i] == src.def {
			continue
		}
		cl := &src.cells[c[i]]
		switch src.on.Kind {
		case spec.RefArgument:
			argOver[src.on.Path[0]] = cl
		case spec.RefFormField:
			if fieldOver[src.on.Path[0]] == nil {
				fieldOver[src.on.Path[0]] = map[string]*armCell{}
			}
			fieldOver[src.on.Path[0]][src.on.Path[1]] = cl
		case spec.RefContinuation:
			vals[jen.Lit(src.key)] = jen.Lit(c[i] + 1)
		}
	}
	if len(argOver) > 0 {
		d := jen.Dict{}
		for _, a := range w.t.Arguments {
			if cl, ok := argOver[a.Name]; ok {
				if !cl.absent {
					d[jen.Lit(a.Name)] = jsonValueCode(cl.value)
				}
				continue
			}
			if v, err := exampleValue(a, 0); err == nil && a.Required {
				d[jen.Lit(a.Name)] = valueCode(v)
			}
		}
		args = jen.Map(jen.String()).Any().Values(d)
	}
	if len(fieldOver) > 0 {
		d := jen.Dict{}
		for _, q := range w.requests() {
			over, ok := fieldOver[q.Key]
			if !ok {
				continue
			}
			content := jen.Dict{}
			for _, f := range q.Fields {
				if cl, ok := over[f.Name]; ok {
					if !cl.absent {
						content[jen.Lit(f.Name)] = jsonValueCode(cl.value)
					}
					continue
				}
				if v, err := exampleValue(f, 0); err == nil {
					content[jen.Lit(f.Name)] = valueCode(v)
				}
			}
			d[jen.Lit(q.Key)] = jen.Qual(pkgTest, "Accept").Call(jen.Map(jen.String()).Any().Values(content))
		}
		answers = jen.Map(jen.String()).Qual(pkgMCP, "InputResponse").Values(d)
	}
	if len(vals) > 0 {
		values = jen.Map(jen.String()).Uint8().Values(vals)
	}
	return args, answers, values
}
