package generator_test

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/generator"
)

// The exported API of generated code: what handlers implement (the handler
// interfaces), what they read and set (flows, arguments, continuations,
// answers, enum constants, outcomes) and what servers call (constructors,
// registration). Language v1 grows, but a v1 spec keeps the API it was
// generated with, so a team that regenerates after upgrading mrtrgen does
// not have to touch its handlers.
//
// testdata/api holds the API of every spec of the goldens, the examples and
// the runtime's test programs, as generated when language v1 was extended
// with dynamic options and declared continuation values (issue 13): the
// "before". TestV1APIUnchanged generates each spec with the current
// generator and compares. A declaration that is gone or changed fails the
// test unless testdata/api/NOTES explains it (a line "<case> | <decl> | why");
// new declarations are reported but allowed, since no handler can depend on
// them yet. -update-api rewrites the snapshots: only for a new spec, never
// to make a change pass.

var updateAPI = flag.Bool("update-api", false, "write the API snapshot of a spec that has none")

// apiCase is one spec whose generated API is pinned.
type apiCase struct {
	name string // snapshot file name, without .txt
	spec string
}

func apiCases(t *testing.T) []apiCase {
	t.Helper()
	var cases []apiCase
	for _, c := range goldenCases(t) {
		if _, err := os.Stat(filepath.Join(c.dir, "want")); err != nil {
			continue // an error case generates nothing
		}
		cases = append(cases, apiCase{name: "golden-" + c.name, spec: c.spec})
	}
	for _, glob := range []string{"../examples/specs/*.mrtr.yaml", "../mrtr/internal/testprog/*.mrtr.yaml"} {
		paths, err := filepath.Glob(glob)
		if err != nil || len(paths) == 0 {
			t.Fatalf("%s: no specs (%v)", glob, err)
		}
		for _, p := range paths {
			set := filepath.Base(filepath.Dir(filepath.Dir(p)))
			cases = append(cases, apiCase{name: set + "-" + strings.TrimSuffix(filepath.Base(p), ".mrtr.yaml"), spec: p})
		}
	}
	return cases
}

func TestV1APIUnchanged(t *testing.T) {
	notes := apiNotes(t)
	dir := filepath.Join("testdata", "api")
	seen := map[string]bool{}
	for _, c := range apiCases(t) {
		seen[c.name+".txt"] = true
		t.Run(c.name, func(t *testing.T) {
			got := generatedAPI(t, c.spec)
			path := filepath.Join(dir, c.name+".txt")
			wantText, err := os.ReadFile(path)
			if *updateAPI && os.IsNotExist(err) {
				if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err != nil {
				t.Fatalf("no API snapshot for %s (a new spec: go test ./generator -run TestV1APIUnchanged -update-api): %v", c.spec, err)
			}
			want := splitDecls(string(wantText))
			for _, d := range want {
				if slices.Contains(got, d) {
					continue
				}
				if why := notes[c.name+" "+declName(d)]; why != "" {
					t.Logf("%s changed, as noted: %s", declName(d), why)
					continue
				}
				if changed := findDecl(got, declName(d)); changed != "" {
					t.Errorf("the generated API of %s changed:\nbefore: %s\n after: %s", c.spec, d, changed)
				} else {
					t.Errorf("the generated API of %s lost: %s", c.spec, d)
				}
			}
			for _, d := range got {
				if !slices.Contains(want, d) && findDecl(want, declName(d)) == "" {
					t.Logf("new in the API of %s: %s", c.spec, d)
				}
			}
		})
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".txt") && !seen[e.Name()] {
			t.Errorf("testdata/api/%s pins a spec that no longer exists", e.Name())
		}
	}
}

// apiNotes reads testdata/api/NOTES: "<case> | <decl> | reason" per line,
// <decl> as declName writes it.
func apiNotes(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "api", "NOTES"))
	if err != nil {
		t.Fatal(err)
	}
	notes := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, " | ")
		if len(parts) != 3 || strings.TrimSpace(parts[2]) == "" {
			t.Fatalf("testdata/api/NOTES: %q is not \"<case> | <decl> | reason\"", line)
		}
		notes[parts[0]+" "+parts[1]] = parts[2]
	}
	return notes
}

// generatedAPI generates a spec and returns the exported declarations of
// its generated Go files (not tests, not scaffolds), one per entry, sorted.
func generatedAPI(t *testing.T, specPath string) []string {
	t.Helper()
	f, ds := loadAndLint(t, specPath)
	if ds.HasErrors() {
		t.Fatalf("%s has lint errors:\n%s", specPath, lintText(t, ds))
	}
	files, err := generator.Generate(f, generator.Options{SpecPath: specPath})
	if err != nil {
		t.Fatal(err)
	}
	var decls []string
	for _, gf := range files {
		if gf.Kind != generator.Generated || !strings.HasSuffix(gf.Path, ".go") || strings.HasSuffix(gf.Path, "_test.go") {
			continue
		}
		decls = append(decls, exportedDecls(t, gf.Path, gf.Content)...)
	}
	slices.Sort(decls)
	return slices.Compact(decls)
}

// exportedDecls renders every exported declaration of a Go file on one
// line: functions and methods of exported types by signature; types with
// their exported fields and methods only; constants with their values;
// variables with their types.
func exportedDecls(t *testing.T, name string, src []byte) []string {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg := file.Name.Name
	var out []string
	add := func(kind string, node any) {
		var b bytes.Buffer
		if err := printer.Fprint(&b, fset, node); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(b.String()), " ")
		if kind != "func" { // a printed FuncDecl starts with func
			text = kind + " " + text
		}
		out = append(out, pkg+": "+text)
	}
	for _, d := range file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || (d.Recv != nil && !ast.IsExported(recvType(d.Recv))) {
				continue
			}
			d.Body, d.Doc = nil, nil
			add("func", d)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					s.Doc, s.Comment = nil, nil
					dropUnexported(s.Type)
					add("type", s)
				case *ast.ValueSpec:
					kind := "var"
					if d.Tok == token.CONST {
						kind = "const"
					}
					for i, n := range s.Names {
						if !n.IsExported() {
							continue
						}
						one := &ast.ValueSpec{Names: []*ast.Ident{n}, Type: s.Type}
						if kind == "const" && i < len(s.Values) {
							one.Values = []ast.Expr{s.Values[i]}
						}
						add(kind, one)
					}
				}
			}
		}
	}
	return out
}

func recvType(fl *ast.FieldList) string {
	e := fl.List[0].Type
	if st, ok := e.(*ast.StarExpr); ok {
		e = st.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// dropUnexported removes unexported fields of structs and methods of
// interfaces (embedded ones stay: they name their type) and comments.
func dropUnexported(e ast.Expr) {
	var fl *ast.FieldList
	switch e := e.(type) {
	case *ast.StructType:
		fl = e.Fields
	case *ast.InterfaceType:
		fl = e.Methods
	default:
		return
	}
	var kept []*ast.Field
	for _, f := range fl.List {
		f.Doc, f.Comment = nil, nil
		var names []*ast.Ident
		for _, n := range f.Names {
			if n.IsExported() {
				names = append(names, n)
			}
		}
		if len(f.Names) > 0 && len(names) == 0 {
			continue
		}
		f.Names = names
		kept = append(kept, f)
	}
	fl.List = kept
}

func splitDecls(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// declName is what a declaration line declares: "pkg: type Name", "pkg:
// func (T) Name".
func declName(d string) string {
	pkg, rest, _ := strings.Cut(d, ": ")
	kind, rest, _ := strings.Cut(rest, " ")
	if kind == "func" && strings.HasPrefix(rest, "(") {
		recv, after, _ := strings.Cut(rest, ")")
		fields := strings.Fields(recv)
		name, _, _ := strings.Cut(after, "(")
		return fmt.Sprintf("%s: func (%s) %s", pkg, strings.TrimPrefix(fields[len(fields)-1], "*"), strings.TrimSpace(name))
	}
	name := strings.FieldsFunc(rest, func(r rune) bool { return r == ' ' || r == '(' || r == '[' })[0]
	return pkg + ": " + kind + " " + name
}

func findDecl(decls []string, name string) string {
	for _, d := range decls {
		if declName(d) == name {
			return d
		}
	}
	return ""
}
