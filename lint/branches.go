package lint

import (
	"math"
	"slices"
	"strings"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Value branches: every value must take exactly one arm. For an enum or a
// boolean that is a matter of listing values; for a number the ranges are
// intervals of the value's domain (its minimum and maximum, whole numbers
// for an integer), which must not overlap, must each hold a value, and,
// without a default, must together cover the domain. A value that may be
// absent needs a default too.

// interval is a set of numbers between two bounds; ±Inf for a missing one.
type interval struct {
	lo, hi         float64
	loIncl, hiIncl bool
}

// empty reports whether no number is in the interval.
func (iv interval) empty() bool {
	return iv.lo > iv.hi || (iv.lo == iv.hi && !(iv.loIncl && iv.hiIncl))
}

// intersect is the numbers in both.
func (iv interval) intersect(o interval) interval {
	out := iv
	if o.lo > out.lo || (o.lo == out.lo && !o.loIncl) {
		out.lo, out.loIncl = o.lo, o.loIncl
	}
	if o.hi < out.hi || (o.hi == out.hi && !o.hiIncl) {
		out.hi, out.hiIncl = o.hi, o.hiIncl
	}
	return out
}

// witness is a number in a non-empty interval, as round as it can be:
// what a finding shows a reader.
func (iv interval) witness() float64 {
	switch {
	case iv.loIncl && !math.IsInf(iv.lo, 0):
		return iv.lo
	case iv.hiIncl && !math.IsInf(iv.hi, 0):
		return iv.hi
	case math.IsInf(iv.lo, -1) && math.IsInf(iv.hi, 1):
		return 0
	case math.IsInf(iv.lo, -1):
		return math.Floor(iv.hi) - 1
	case math.IsInf(iv.hi, 1):
		return math.Floor(iv.lo) + 1
	}
	if m := math.Floor(iv.lo) + 1; m < iv.hi {
		return m
	}
	return (iv.lo + iv.hi) / 2
}

// describe writes an interval the way range labels do.
func (iv interval) describe() string {
	if iv.lo == iv.hi {
		return spec.FormatNumber(iv.lo)
	}
	var parts []string
	if !math.IsInf(iv.lo, -1) {
		word := "above "
		if iv.loIncl {
			word = "at least "
		}
		parts = append(parts, word+spec.FormatNumber(iv.lo))
	}
	if !math.IsInf(iv.hi, 1) {
		word := "below "
		if iv.hiIncl {
			word = "at most "
		}
		parts = append(parts, word+spec.FormatNumber(iv.hi))
	}
	if len(parts) == 0 {
		return "any number"
	}
	return strings.Join(parts, " and ")
}

// domain is the numbers a field's value can be: its minimum and maximum.
func domain(f *spec.Field) interval {
	iv := interval{lo: math.Inf(-1), hi: math.Inf(1)}
	if f.Minimum != nil {
		iv.lo, iv.loIncl = *f.Minimum, true
	}
	if f.Maximum != nil {
		iv.hi, iv.hiIncl = *f.Maximum, true
	}
	return wholeNumbers(f, iv)
}

// rangeInterval is the numbers of a field's domain that a range takes.
func rangeInterval(f *spec.Field, r *spec.Range) interval {
	iv := interval{lo: math.Inf(-1), hi: math.Inf(1)}
	if r.Lower != nil {
		iv.lo, iv.loIncl = r.Lower.Value, r.Lower.Inclusive
	}
	if r.Upper != nil {
		iv.hi, iv.hiIncl = r.Upper.Value, r.Upper.Inclusive
	}
	return wholeNumbers(f, iv).intersect(domain(f))
}

// wholeNumbers makes an integer's interval inclusive whole-number bounds
// (above 4.5 is at least 5), so that ranges meeting between two integers
// cover everything between them.
func wholeNumbers(f *spec.Field, iv interval) interval {
	if f.Type != spec.TypeInteger {
		return iv
	}
	if !math.IsInf(iv.lo, 0) {
		lo := math.Ceil(iv.lo)
		if lo == iv.lo && !iv.loIncl {
			lo++
		}
		iv.lo, iv.loIncl = lo, true
	}
	if !math.IsInf(iv.hi, 0) {
		hi := math.Floor(iv.hi)
		if hi == iv.hi && !iv.hiIncl {
			hi--
		}
		iv.hi, iv.hiIncl = hi, true
	}
	return iv
}

// gaps returns the parts of dom no interval of ivs covers, in order.
func gaps(f *spec.Field, dom interval, ivs []interval) []interval {
	sorted := slices.Clone(ivs)
	slices.SortFunc(sorted, func(a, b interval) int {
		switch {
		case a.lo < b.lo || (a.lo == b.lo && a.loIncl && !b.loIncl):
			return -1
		case a.lo == b.lo && a.loIncl == b.loIncl:
			return 0
		}
		return 1
	})
	var out []interval
	cur := interval{lo: dom.lo, loIncl: dom.loIncl} // what is not covered yet starts here
	for _, iv := range sorted {
		g := interval{lo: cur.lo, loIncl: cur.loIncl, hi: iv.lo, hiIncl: !iv.loIncl}
		if f.Type == spec.TypeInteger && !math.IsInf(g.hi, 0) {
			g.hi, g.hiIncl = iv.lo-1, true
		}
		if g = g.intersect(dom); !g.empty() {
			out = append(out, g)
		}
		if iv.hi > cur.lo || (iv.hi == cur.lo && iv.hiIncl) {
			cur.lo, cur.loIncl = iv.hi, !iv.hiIncl
			if f.Type == spec.TypeInteger && !math.IsInf(cur.lo, 0) {
				cur.lo, cur.loIncl = iv.hi+1, true
			}
		}
	}
	last := interval{lo: cur.lo, loIncl: cur.loIncl, hi: dom.hi, hiIncl: dom.hiIncl}
	if !last.empty() && !(math.IsInf(last.lo, 1)) {
		out = append(out, last)
	}
	return out
}

// mayBeAbsentAt reports why the value a branch routes on may be absent
// ("" when it is always there): an optional argument or form field, or the
// answer of an optional request.
func mayBeAbsentAt(t *spec.Tool, b *spec.ValueBranch) string {
	f := b.On.Field
	switch b.On.Kind {
	case spec.RefArgument:
		if mayBeAbsent(f) {
			return "argument " + b.On.Name() + " is optional and has no default"
		}
	case spec.RefFormField:
		for _, s := range t.States {
			if q := s.Request(b.On.Path[0]); q != nil {
				if q.Optional {
					return "request " + q.Key + " is optional (left out when the client cannot answer it)"
				}
				if mayBeAbsent(f) {
					return "form field " + b.On.Name() + " is not required and has no default"
				}
			}
		}
	}
	return ""
}

// branches calls fn for every value branch whose value the loader
// resolved.
func (c *checker) branches(fn func(t *spec.Tool, i int, s *spec.State, b *spec.ValueBranch)) {
	for _, t := range c.file.Workflows() {
		for i, s := range t.States {
			if b := s.Branch; b != nil && b.On.Field != nil {
				fn(t, i, s, b)
			}
		}
	}
}

// enumValues are the values a branch over an enum or a boolean can see.
func enumValues(f *spec.Field) []string {
	if f.Type == spec.TypeBoolean {
		return []string{"false", "true"}
	}
	var out []string
	for _, v := range f.Values {
		out = append(out, v.Value)
	}
	return out
}

func checkBranchExhaustive(c *checker, r *Rule) {
	c.branches(func(t *spec.Tool, _ int, s *spec.State, b *spec.ValueBranch) {
		if b.Default != nil {
			return
		}
		sc := c.toolScope(t, s.Lint)
		f := b.On.Field
		if why := mayBeAbsentAt(t, b); why != "" {
			c.report(r, b.Pos, sc, "%s %q: branch %q has no arm for an absent %s: %s", t.Kind, t.Name, s.Name, b.On.Name(), why)
		}
		switch f.Type {
		case spec.TypeEnum, spec.TypeBoolean:
			var missing []string
			for _, v := range enumValues(f) {
				if !slices.ContainsFunc(b.Cases, func(x *spec.Case) bool { return x.Value == v }) {
					missing = append(missing, v)
				}
			}
			if len(missing) > 0 {
				c.report(r, b.Pos, sc, "%s %q: branch %q has no case for %s = %s", t.Kind, t.Name, s.Name, b.On.Name(), strings.Join(missing, ", "))
			}
		case spec.TypeNumber, spec.TypeInteger:
			var ivs []interval
			for _, rg := range b.Ranges {
				if iv := rangeInterval(f, rg); !iv.empty() {
					ivs = append(ivs, iv)
				}
			}
			var holes []string
			for _, g := range gaps(f, domain(f), ivs) {
				holes = append(holes, g.describe())
			}
			if len(holes) > 0 {
				c.report(r, b.Pos, sc, "%s %q: branch %q takes no arm when %s is %s", t.Kind, t.Name, s.Name, b.On.Name(), strings.Join(holes, ", or "))
			}
		}
	})
}

func checkUnreachableArm(c *checker, r *Rule) {
	c.branches(func(t *spec.Tool, _ int, s *spec.State, b *spec.ValueBranch) {
		sc := c.toolScope(t, s.Lint)
		f := b.On.Field
		covered := false
		switch f.Type {
		case spec.TypeEnum, spec.TypeBoolean:
			covered = len(b.Cases) == len(enumValues(f))
		case spec.TypeNumber, spec.TypeInteger:
			dom := domain(f)
			var ivs []interval
			for _, rg := range b.Ranges {
				iv := rangeInterval(f, rg)
				if iv.empty() {
					c.report(r, rg.Pos, sc, "%s %q: no value of %s (%s) is %s: the arm of branch %q to %q never runs", t.Kind, t.Name, b.On.Name(), dom.describe(), rg.Label(), s.Name, rg.Target.Name)
					continue
				}
				ivs = append(ivs, iv)
			}
			covered = len(ivs) > 0 && len(gaps(f, dom, ivs)) == 0
		}
		if covered && b.Default != nil && mayBeAbsentAt(t, b) == "" {
			c.report(r, b.Default.Pos, sc, "%s %q: the arms of branch %q take every value of %s, so its default %q never runs", t.Kind, t.Name, s.Name, b.On.Name(), b.Default.Name)
		}
	})
}

func checkOverlappingThresholds(c *checker, r *Rule) {
	c.branches(func(t *spec.Tool, _ int, s *spec.State, b *spec.ValueBranch) {
		f := b.On.Field
		for j, rg := range b.Ranges {
			iv := rangeInterval(f, rg)
			for _, prev := range b.Ranges[:j] {
				both := rangeInterval(f, prev).intersect(iv)
				if both.empty() {
					continue
				}
				c.report(r, rg.Pos, c.toolScope(t, s.Lint), "%s %q: in branch %q, ranges %q (line %d) and %q both take %s = %s",
					t.Kind, t.Name, s.Name, prev.Label(), prev.Pos.Line, rg.Label(), b.On.Name(), spec.FormatNumber(both.witness()))
				break
			}
		}
	})
}

// checkBranchValueNotSet reports a branch on an answer that some path to
// it has not given, or on a continuation field no check or effect may
// have set on some path. In a workflow whose checks and effects declare
// what they set (sets:), value-not-set proves the continuation field
// instead, from the declarations.
func checkBranchValueNotSet(c *checker, r *Rule) {
	flows := map[*spec.Tool]*answerFlow{}
	c.branches(func(t *spec.Tool, i int, s *spec.State, b *spec.ValueBranch) {
		g := c.graph(t)
		var walk string
		switch b.On.Kind {
		case spec.RefFormField:
			flow := flows[t]
			if flow == nil {
				flow = c.answers(t)
				flows[t] = flow
			}
			bit, ok := flow.keys[b.On.Path[0]]
			if !ok || flow.given[i] == nil || flow.at(i).Has(bit) {
				return
			}
			walk = flow.witness(i, b.On.Path[0])
			c.report(r, b.On.Pos, c.toolScope(t, s.Lint), "%s %q: branch %q routes on %s, which is not answered on every path to it (it is given only after %q by its next edge): the walk %s reaches it without the answer",
				t.Kind, t.Name, s.Name, b.On.Name(), g.states[flow.owner[bit]].Name, walk)
		case spec.RefContinuation:
			if t.DeclaresSets() || offersOptions(t) {
				return // the checks say what they set: value-not-set proves it
			}
			unset := g.pathAvoiding(isKind(vocab.StateCheck, vocab.StateEffect))
			if !unset.Has(i) {
				return
			}
			walk = g.walkTo(i, func(from int, _ vocab.Edge) bool { return isKind(vocab.StateCheck, vocab.StateEffect)(g.states[from]) })
			c.report(r, b.On.Pos, c.toolScope(t, s.Lint), "%s %q: branch %q routes on continuation field %s, but no check or effect runs before it on the walk %s, so nothing has set it",
				t.Kind, t.Name, s.Name, b.On.Name(), walk)
		}
	})
}
