// Command cgdiff compares two cachegrind runs per operation: for each of
// two variants it reads the outputs of a short and a long run of the same
// benchmark (N1 and N2 iterations, same setup), so that setup cancels out
// and the difference divided by N2-N1 is what one operation costs. It
// prints, per package and then per function, the last-level cache misses
// (instruction and data: what a round pays when its code and data are not
// in the cache) and the instructions of variant A against variant B.
//
//	cgdiff -n1 300 -n2 1300 A-300.out A-1300.out B-300.out B-1300.out
//
// bench/coldmisses.sh runs the cold final round of examples/server under
// cachegrind and calls it.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cgdiff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n1 := fs.Int("n1", 300, "iterations of the short runs")
	n2 := fs.Int("n2", 1300, "iterations of the long runs")
	top := fs.Int("top", 25, "functions to list")
	exclude := fs.String("exclude", "", "regexp of functions to leave out (the benchmark's own cache eviction)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 4 || *n2 <= *n1 {
		fmt.Fprintln(stderr, "usage: cgdiff [-n1 N1 -n2 N2 -top K -exclude RE] A-N1.out A-N2.out B-N1.out B-N2.out")
		return 2
	}
	skip := func(string) bool { return false }
	if *exclude != "" {
		re, err := regexp.Compile(*exclude)
		if err != nil {
			fmt.Fprintln(stderr, "cgdiff:", err)
			return 2
		}
		skip = re.MatchString
	}
	var per [2]map[string]cost
	for v := range per {
		short, err := load(fs.Arg(2 * v))
		if err == nil {
			var long map[string]cost
			if long, err = load(fs.Arg(2*v + 1)); err == nil {
				per[v] = perOp(short, long, float64(*n2-*n1), skip)
			}
		}
		if err != nil {
			fmt.Fprintln(stderr, "cgdiff:", err)
			return 1
		}
	}
	report(stdout, per[0], per[1], *top)
	return 0
}

// cost is what cachegrind counted for a function: instructions, and misses
// of the last-level cache (instruction reads, data reads and writes), of
// which codeMisses are instruction reads.
type cost struct{ ir, llMisses, codeMisses float64 }

func (c cost) add(o cost) cost {
	return cost{c.ir + o.ir, c.llMisses + o.llMisses, c.codeMisses + o.codeMisses}
}

// load sums a cachegrind output file's counts by function.
func load(path string) (map[string]cost, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var events []string
	fn := ""
	sums := map[string]cost{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "events:"):
			events = strings.Fields(strings.TrimPrefix(line, "events:"))
		case strings.HasPrefix(line, "fn="):
			fn = strings.TrimPrefix(line, "fn=")
		case fn != "" && line != "" && line[0] >= '0' && line[0] <= '9':
			c, err := lineCost(events, strings.Fields(line)[1:])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			sums[fn] = sums[fn].add(c)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if events == nil {
		return nil, fmt.Errorf("%s: not a cachegrind output (no events line)", path)
	}
	return sums, nil
}

// lineCost reads one cost line's counts (trailing zeros may be left out).
func lineCost(events, counts []string) (cost, error) {
	var c cost
	for i, s := range counts {
		if i >= len(events) {
			break
		}
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return c, fmt.Errorf("bad count %q", s)
		}
		switch events[i] {
		case "Ir":
			c.ir += n
		case "ILmr":
			c.llMisses += n
			c.codeMisses += n
		case "DLmr", "DLmw":
			c.llMisses += n
		}
	}
	return c, nil
}

// perOp is (long - short) / n per function, without the skipped ones.
func perOp(short, long map[string]cost, n float64, skip func(string) bool) map[string]cost {
	out := map[string]cost{}
	for fn, l := range long {
		if skip(fn) {
			continue
		}
		s := short[fn]
		out[fn] = cost{(l.ir - s.ir) / n, (l.llMisses - s.llMisses) / n, (l.codeMisses - s.codeMisses) / n}
	}
	return out
}

// pkg is the package a function symbol belongs to, with the runtime's
// internal packages, and assembly and C symbols (no package: memeqbody,
// gcWriteBarrier, libc), counted as the runtime. A generated equality or
// hash function (type:.eq.PKG.T) counts in PKG.
func pkg(fn string) string {
	for _, prefix := range []string{"type:.eq.", "type:.hash."} {
		fn = strings.TrimPrefix(fn, prefix)
	}
	if !strings.Contains(fn, ".") {
		return "runtime"
	}
	head := fn // the path and name, without type arguments or a receiver
	if i := strings.IndexAny(fn, "[("); i >= 0 {
		head = fn[:i]
	}
	slash := strings.LastIndex(head, "/")
	p := head
	if dot := strings.Index(head[slash+1:], "."); dot >= 0 {
		p = head[:slash+1+dot]
	}
	if p == "runtime" || strings.HasPrefix(p, "internal/runtime") {
		return "runtime"
	}
	return p
}

type row struct {
	name string
	a, b cost
}

func report(w io.Writer, a, b map[string]cost, top int) {
	byPkg := map[string]*row{}
	byFn := map[string]*row{}
	var total row
	for side, m := range []map[string]cost{a, b} {
		for fn, c := range m {
			for _, r := range []*row{entry(byPkg, pkg(fn)), entry(byFn, fn), &total} {
				if side == 0 {
					r.a = r.a.add(c)
				} else {
					r.b = r.b.add(c)
				}
			}
		}
	}
	fmt.Fprintf(w, "per operation: last-level cache misses A, B, A-B (of which code) | instructions A, B | name\n")
	line := func(name string, r *row) {
		fmt.Fprintf(w, "%7.0f %7.0f %+7.0f (%+6.0f) | %8.0f %8.0f | %s\n", r.a.llMisses, r.b.llMisses,
			r.a.llMisses-r.b.llMisses, r.a.codeMisses-r.b.codeMisses, r.a.ir, r.b.ir, name)
	}
	line("total", &total)
	table := func(title string, rows map[string]*row, limit int) {
		fmt.Fprintf(w, "\n%s\n", title)
		list := make([]*row, 0, len(rows))
		for _, r := range rows {
			list = append(list, r)
		}
		sort.Slice(list, func(i, j int) bool {
			di, dj := list[i].a.llMisses-list[i].b.llMisses, list[j].a.llMisses-list[j].b.llMisses
			if di != dj {
				return di > dj
			}
			return list[i].name < list[j].name
		})
		for i, r := range list {
			if i == limit {
				break
			}
			if r.a.llMisses < 1 && r.b.llMisses < 1 {
				continue // code of neither round
			}
			line(r.name, r)
		}
	}
	table("by package (most extra misses first)", byPkg, len(byPkg))
	table("by function", byFn, top)
}

func entry(m map[string]*row, name string) *row {
	r := m[name]
	if r == nil {
		r = &row{name: name}
		m[name] = r
	}
	return r
}
