package lint

import (
	"math"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

func ptr(x float64) *float64 { return &x }

// The gaps a set of ranges leaves in a field's domain, for reals and for
// integers (whose ranges count whole numbers).
func TestGaps(t *testing.T) {
	rng := func(lo *spec.Bound, hi *spec.Bound) *spec.Range { return &spec.Range{Lower: lo, Upper: hi} }
	above := func(x float64) *spec.Bound { return &spec.Bound{Value: x} }
	atLeast := func(x float64) *spec.Bound { return &spec.Bound{Value: x, Inclusive: true} }
	below, atMost := above, atLeast
	num := &spec.Field{Type: spec.TypeNumber, Minimum: ptr(0)}
	integer := &spec.Field{Type: spec.TypeInteger, Minimum: ptr(0), Maximum: ptr(10000)}
	cases := []struct {
		name   string
		f      *spec.Field
		ranges []*spec.Range
		want   string
	}{
		{"nothing", num, nil, "at least 0"},
		{"above 500 leaves 0 to 500", num, []*spec.Range{rng(above(500), nil)}, "at least 0 and at most 500"},
		{"below and above leave the point", num, []*spec.Range{rng(nil, below(500)), rng(above(500), nil)}, "500"},
		{"atMost and above cover the reals", num, []*spec.Range{rng(nil, atMost(500)), rng(above(500), nil)}, ""},
		{"integers: atMost 500 and atLeast 501 meet", integer, []*spec.Range{rng(nil, atMost(500)), rng(atLeast(501), nil)}, ""},
		{"integers: below 500 and above 500 leave 500", integer, []*spec.Range{rng(nil, below(500)), rng(above(500), nil)}, "500"},
		{"integers: a hole in the middle", integer, []*spec.Range{rng(nil, atMost(500)), rng(above(1000), nil)}, "at least 501 and at most 1000"},
		{"integers: the top is left", integer, []*spec.Range{rng(nil, atMost(500))}, "at least 501 and at most 10000"},
		{"overlapping ranges still cover", num, []*spec.Range{rng(nil, atMost(600)), rng(above(500), nil)}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ivs []interval
			for _, r := range c.ranges {
				if iv := rangeInterval(c.f, r); !iv.empty() {
					ivs = append(ivs, iv)
				}
			}
			var got []string
			for _, g := range gaps(c.f, domain(c.f), ivs) {
				got = append(got, g.describe())
			}
			if s := strings.Join(got, "; "); s != c.want {
				t.Errorf("gaps = %q, want %q", s, c.want)
			}
		})
	}
}

// A witness is inside its interval.
func TestWitness(t *testing.T) {
	inf := math.Inf(1)
	for _, iv := range []interval{
		{lo: 500, hi: inf},
		{lo: 500, hi: 501},
		{lo: 0.1, hi: 0.2},
		{lo: -inf, hi: -3},
		{lo: -inf, hi: inf},
		{lo: 7, hi: 7, loIncl: true, hiIncl: true},
	} {
		w := iv.witness()
		in := interval{lo: w, hi: w, loIncl: true, hiIncl: true}.intersect(iv)
		if in.empty() {
			t.Errorf("witness %v of %+v is outside it", w, iv)
		}
	}
}
