package diagram_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/diagram"
	"github.com/mrtrgen/mrtrgen/spec"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// specs are the example specs and the keyword spec, whose state names are
// words the Mermaid and DOT grammars reserve.
func specs(t *testing.T) []*spec.File {
	t.Helper()
	paths, err := filepath.Glob("../examples/specs/*" + spec.Ext)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example specs: %v", err)
	}
	paths = append(paths, "testdata/keywords"+spec.Ext)
	var out []*spec.File
	for _, p := range paths {
		f, ds, err := spec.LoadFile(p, spec.Options{})
		if err != nil || f == nil {
			t.Fatalf("%s: %v %v", p, err, ds)
		}
		out = append(out, f)
	}
	return out
}

func workflows(t *testing.T) []*spec.Tool {
	var ts []*spec.Tool
	for _, f := range specs(t) {
		ts = append(ts, f.Workflows()...)
	}
	return ts
}

func TestGolden(t *testing.T) {
	for _, w := range workflows(t) {
		g := diagram.Build(w)
		for ext, got := range map[string]string{".mmd": g.Mermaid(), ".dot": g.DOT()} {
			path := filepath.Join("testdata", "golden", w.Name+ext)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./diagram -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the golden file (go test ./diagram -update rewrites it)\n--- got\n%s", path, got)
			}
		}
	}
}

// The same spec, loaded twice, draws the same bytes.
func TestDeterministic(t *testing.T) {
	a, b := workflows(t), workflows(t)
	for i := range a {
		if x, y := diagram.Build(a[i]).Mermaid(), diagram.Build(b[i]).Mermaid(); x != y {
			t.Errorf("%s: Mermaid differs between loads", a[i].Name)
		}
		if x, y := diagram.Build(a[i]).DOT(), diagram.Build(b[i]).DOT(); x != y {
			t.Errorf("%s: DOT differs between loads", a[i].Name)
		}
	}
}

func find(t *testing.T, name string) *spec.Tool {
	t.Helper()
	for _, w := range workflows(t) {
		if w.Name == name {
			return w
		}
	}
	t.Fatalf("no workflow %s", name)
	return nil
}

func edge(g *diagram.Graph, from, to string) *diagram.Edge {
	for _, e := range g.Edges {
		if e.From == from && e.To == to {
			return e
		}
	}
	return nil
}

// The structure of the graph: every state, every spec transition with its
// label, and the implicit exits exactly where the runtime takes them.
func TestStructure(t *testing.T) {
	g := diagram.Build(find(t, "charge_payment"))
	want := []string{"start", "s_validate", "s_confirmCharge", "s_recheck", "s_notCharged", "s_charge", "s_charged", "x_cancelled", "x_rejected", "end"}
	var got []string
	for _, n := range g.Nodes {
		got = append(got, n.ID)
	}
	if !slices.Equal(got, want) {
		t.Errorf("nodes %v, want %v", got, want)
	}
	for _, tc := range []struct {
		from, to, label string
		implicit        bool
	}{
		{"start", "s_validate", "", false},
		{"s_validate", "s_confirmCharge", "next", false},
		{"s_validate", "x_rejected", "rejected / error", true},
		{"s_confirmCharge", "s_recheck", "confirmed", false},
		{"s_confirmCharge", "s_notCharged", "declined", false},
		// onCancel is not set: cancelling ends the workflow as cancelled.
		{"s_confirmCharge", "x_cancelled", "cancelled", true},
		{"s_charge", "s_charged", "next", false},
		{"s_charge", "x_rejected", "rejected / error", true},
		{"s_charged", "end", "", false},
		{"s_notCharged", "end", "", false},
		{"x_cancelled", "end", "", true},
	} {
		e := edge(g, tc.from, tc.to)
		if e == nil {
			t.Errorf("no edge %s -> %s", tc.from, tc.to)
			continue
		}
		if e.Label() != tc.label || e.Implicit != tc.implicit {
			t.Errorf("%s -> %s: label %q implicit %v, want %q %v", tc.from, tc.to, e.Label(), e.Implicit, tc.label, tc.implicit)
		}
	}
	if n := g.Node("s_charge"); n.Class != "irreversible" || !slices.Contains(n.Lines, "IRREVERSIBLE") {
		t.Errorf("irreversible effect not marked: %+v", n)
	}
	if n := g.Node("s_notCharged"); n.Class != "cancelled" {
		t.Errorf("terminal class %q", n.Class)
	}

	// A gate whose decline and cancel both lead to one state has one edge
	// with both labels, and no implicit exit.
	g = diagram.Build(find(t, "delete_customer"))
	if e := edge(g, "s_confirmDeletion", "s_kept"); e == nil || e.Label() != "declined, cancelled" {
		t.Errorf("merged edge: %+v", e)
	}
	if g.Node("x_cancelled") != nil {
		t.Error("delete_customer has no implicit cancellation, but the graph draws one")
	}
	if e := edge(g, "s_inspect", "s_confirmCancellation"); e == nil || e.Label() != "activeSubscription" {
		t.Errorf("outcome edge: %+v", e)
	}

	// An ask without onDecline/onCancel ends as cancelled either way.
	g = diagram.Build(find(t, "close_support_ticket"))
	if e := edge(g, "s_askReason", "x_cancelled"); e == nil || e.Label() != "declined, cancelled" || !e.Implicit {
		t.Errorf("implicit cancel of an ask: %+v", e)
	}
	if e := edge(g, "s_askReason", "s_close"); e == nil || e.Label() != "answered" {
		t.Errorf("answered edge: %+v", e)
	}

	// A workflow with only a terminal state has neither exit.
	g = diagram.Build(find(t, "test_simple_text"))
	if len(g.Nodes) != 3 || len(g.Edges) != 2 {
		t.Errorf("simple workflow: %d nodes, %d edges", len(g.Nodes), len(g.Edges))
	}
}

// Every state and every spec transition is drawn, in both formats.
func TestCompleteness(t *testing.T) {
	for _, w := range workflows(t) {
		g := diagram.Build(w)
		mmd, dot := g.Mermaid(), g.DOT()
		for _, s := range w.States {
			if !strings.Contains(mmd, " as s_"+s.Name+"\n") || !strings.Contains(dot, `"s_`+s.Name+`" [`) {
				t.Errorf("%s: state %s not drawn", w.Name, s.Name)
			}
			for _, e := range s.Edges() {
				if !strings.Contains(mmd, "s_"+s.Name+" --> s_"+e.To) || !strings.Contains(dot, `"s_`+s.Name+`" -> "s_`+e.To+`"`) {
					t.Errorf("%s: transition %s -%s-> %s not drawn", w.Name, s.Name, e.On, e.To)
				}
			}
		}
		if !strings.Contains(mmd, "[*] --> s_"+w.Initial+"\n") {
			t.Errorf("%s: initial state not marked", w.Name)
		}
	}
}

// mermaidLine is the grammar of the Mermaid the package writes: a subset of
// stateDiagram-v2. Ids are checked separately against the declarations.
var mermaidLine = []*regexp.Regexp{
	regexp.MustCompile(`^    state "([A-Za-z0-9 (),/._-]|#\d+;)+" as (?P<decl>[sx]_[A-Za-z0-9_]+)$`),
	regexp.MustCompile(`^    (?P<use>[sx]_[A-Za-z0-9_]+) : ([A-Za-z0-9 (),/._-]|#\d+;)+$`),
	regexp.MustCompile(`^    (?P<use>\[\*\]|[sx]_[A-Za-z0-9_]+) --> (?P<use2>\[\*\]|[sx]_[A-Za-z0-9_]+)( : ([A-Za-z0-9 (),/._-]|#\d+;)+)?$`),
	regexp.MustCompile(`^    classDef [a-z]+ [a-z-]+:[#a-z0-9 ]+(,[a-z-]+:[#a-z0-9 ]+)*$`),
	regexp.MustCompile(`^    class (?P<uses>[sx]_[A-Za-z0-9_]+(,[sx]_[A-Za-z0-9_]+)*) [a-z]+$`),
}

// checkMermaid validates a diagram against the grammar: the header, one
// statement per line, every id used is declared, and every class used is
// defined.
func checkMermaid(src string) error {
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	if lines[0] != "stateDiagram-v2" {
		return fmt.Errorf("first line %q", lines[0])
	}
	declared := map[string]bool{"[*]": true}
	classes := map[string]bool{}
	var uses []string
	for i, l := range lines[1:] {
		matched := false
		for _, re := range mermaidLine {
			m := re.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			matched = true
			for j, name := range re.SubexpNames() {
				switch name {
				case "decl":
					if declared[m[j]] {
						return fmt.Errorf("line %d: %s declared twice", i+2, m[j])
					}
					declared[m[j]] = true
				case "use", "use2":
					uses = append(uses, m[j])
				case "uses":
					uses = append(uses, strings.Split(m[j], ",")...)
				}
			}
			if f := strings.Fields(l); f[0] == "classDef" {
				classes[f[1]] = true
			} else if f[0] == "class" && !classes[f[2]] {
				return fmt.Errorf("line %d: class %s is not defined", i+2, f[2])
			}
			break
		}
		if !matched {
			return fmt.Errorf("line %d is not in the grammar: %q", i+2, l)
		}
	}
	for _, u := range uses {
		if !declared[u] {
			return fmt.Errorf("%s is used but not declared", u)
		}
	}
	return nil
}

func TestMermaidSyntax(t *testing.T) {
	for _, w := range workflows(t) {
		if err := checkMermaid(diagram.Build(w).Mermaid()); err != nil {
			t.Errorf("%s: %v", w.Name, err)
		}
	}
	// The checker itself refuses what Mermaid refuses.
	for _, bad := range []string{
		"graph TD\n",
		"stateDiagram-v2\n    s_a --> s_b : x\n",                           // undeclared
		"stateDiagram-v2\n    state \"a: b\" as s_a\n",                     // colon in a name
		"stateDiagram-v2\n    state \"a\" as s_a\n    class s_a nowhere\n", // undefined class
	} {
		if checkMermaid(bad) == nil {
			t.Errorf("checker accepted %q", bad)
		}
	}
}

var dotLine = []*regexp.Regexp{
	regexp.MustCompile(`^digraph "[a-z]+ [^"\\]+" \{$`),
	regexp.MustCompile(`^\t(graph|node|edge) \[.+\];$`),
	regexp.MustCompile(`^\t"[a-z]+(_[A-Za-z0-9_]+)?" \[([a-z]+=("([^"\\]|\\.)*"|[a-z0-9.,]+)(, )?)+\];$`),
	regexp.MustCompile(`^\t"[a-z]+(_[A-Za-z0-9_]+)?" -> "[a-z]+(_[A-Za-z0-9_]+)?"( \[([a-z]+=("([^"\\]|\\.)*"|[a-z0-9.,]+)(, )?)+\])?;$`),
	regexp.MustCompile(`^\}$`),
}

func TestDOTSyntax(t *testing.T) {
	for _, w := range workflows(t) {
		src := diagram.Build(w).DOT()
		for i, l := range strings.Split(strings.TrimSuffix(src, "\n"), "\n") {
			ok := slices.ContainsFunc(dotLine, func(re *regexp.Regexp) bool { return re.MatchString(l) })
			if !ok {
				t.Errorf("%s: line %d is not in the grammar: %q", w.Name, i+1, l)
			}
		}
	}
}

func TestRender(t *testing.T) {
	ts := workflows(t)[:3]
	var b bytes.Buffer
	if err := diagram.Render(&b, "mermaid", ts); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "stateDiagram-v2\n"); n != 3 {
		t.Errorf("%d diagrams", n)
	}
	if !strings.HasPrefix(b.String(), "%% "+ts[0].Kind.String()+" "+ts[0].Name+" ("+filepath.ToSlash(ts[0].Pos.File)+")\nstateDiagram-v2\n") {
		t.Errorf("several diagrams are not headed by a comment:\n%s", b.String())
	}
	b.Reset()
	if err := diagram.Render(&b, "mermaid", ts[:1]); err != nil || !strings.HasPrefix(b.String(), "stateDiagram-v2\n") {
		t.Errorf("one diagram is not bare: %v\n%s", err, b.String())
	}
	if err := diagram.Render(&b, "svg", ts); err == nil || !strings.Contains(err.Error(), "mermaid, dot") {
		t.Errorf("unknown format: %v", err)
	}
}

// TestGraphviz renders every DOT graph with Graphviz, when it is installed.
func TestGraphviz(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz (dot) is not installed")
	}
	for _, w := range workflows(t) {
		cmd := exec.Command(dot, "-Tsvg")
		cmd.Stdin = strings.NewReader(diagram.Build(w).DOT())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 || !bytes.Contains(out, []byte("<svg")) {
			t.Errorf("%s: dot: %v\n%s", w.Name, err, stderr.String())
		}
	}
}

// TestMermaidCLI renders every diagram with the real Mermaid renderer when
// MRTRGEN_MMDC names a mermaid-cli command, for example
//
//	MRTRGEN_MMDC="$HOME/mmdc/node_modules/.bin/mmdc -p puppeteer.json"
//
// (mermaid-cli drives a headless browser; see docs/graph.md). It renders
// one Markdown file holding every diagram, so the browser starts once.
func TestMermaidCLI(t *testing.T) {
	cmdline := strings.Fields(os.Getenv("MRTRGEN_MMDC"))
	if len(cmdline) == 0 {
		t.Skip("MRTRGEN_MMDC is not set")
	}
	dir := t.TempDir()
	var md strings.Builder
	ws := workflows(t)
	for _, w := range ws {
		fmt.Fprintf(&md, "# %s\n\n```mermaid\n%s```\n\n", w.Name, diagram.Build(w).Mermaid())
	}
	in := filepath.Join(dir, "all.md")
	if err := os.WriteFile(in, []byte(md.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cmdline[0], append(cmdline[1:], "-q", "-i", in, "-o", filepath.Join(dir, "out.md"))...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mermaid-cli: %v\n%s", err, out)
	}
	svgs, _ := filepath.Glob(filepath.Join(dir, "out-*.svg"))
	if len(svgs) != len(ws) {
		t.Fatalf("%d SVGs for %d diagrams", len(svgs), len(ws))
	}
	for _, p := range svgs {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte("<svg")) || bytes.Contains(b, []byte("Syntax error")) {
			t.Errorf("%s: not a rendered diagram (%v)", p, err)
		}
	}
}

// An approval gate shows its policy; its onExpire edge is "deadline
// passed", and without onExpire the deadline ends it in the implicit
// expired exit.
func TestApprovalGate(t *testing.T) {
	g := diagram.Build(find(t, "send_payout"))
	n := g.Node("s_approve")
	if n.Class != "approval" || !slices.Equal(n.Lines, []string{"approval gate", "1 of role finance", "requester excluded", "deadline 24h"}) {
		t.Errorf("approval gate node: %+v", n)
	}
	if e := edge(g, "s_approve", "s_expired"); e == nil || e.Label() != "deadline passed" || e.Implicit {
		t.Errorf("expire edge: %+v", e)
	}
	if e := edge(g, "s_approve", "s_recheck"); e == nil || e.Label() != "approved" {
		t.Errorf("approved edge: %+v", e)
	}
	if g.Node("x_expired") != nil {
		t.Error("send_payout's approval has onExpire, but the graph draws an implicit expiry")
	}
	f, ds, err := spec.LoadFile("../generator/testdata/golden/approvals/treasury.mrtr.yaml", spec.Options{})
	if err != nil || f == nil {
		t.Fatal(err, ds)
	}
	g = diagram.Build(f.Tools[0])
	if e := edge(g, "s_approve", "x_expired"); e == nil || e.Label() != "deadline passed" || !e.Implicit {
		t.Errorf("implicit expiry: %+v", e)
	}
	if n := g.Node("s_approve"); !slices.Contains(n.Lines, "2 of role treasury") || !slices.Contains(n.Lines, "requester page") {
		t.Errorf("approval gate node: %+v", n)
	}
}
