package generator

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
)

// UserCode is what the hand-written Go files of an output directory
// declare: a syntax-only view (go/parser, no type checking), enough to tell
// where a handler is implemented and which of its methods exist, whatever
// the files are called.
type UserCode struct {
	// Types maps each package-level type name to the file declaring it.
	Types map[string]string
	// Methods maps a type name to the names of its methods.
	Methods map[string]map[string]bool
	// Embeds lists the struct types with embedded fields: their method
	// sets cannot be known without type checking.
	Embeds map[string]bool
	// Asserts are the interface assertions var _ I = (*T)(nil) (or T{}).
	Asserts []Assert
}

// Assert is one var _ Iface = (*Type)(nil) in a hand-written file.
type Assert struct {
	File, Iface, Type string
	Line              int
}

// ScanUserCode parses the Go files of dir (not tests, not files mrtrgen
// generated). A directory that does not exist yet has no user code.
func ScanUserCode(dir string) (*UserCode, error) {
	uc := &UserCode{Types: map[string]string{}, Methods: map[string]map[string]bool{}, Embeds: map[string]bool{}}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return uc, nil
	}
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		p := filepath.Join(dir, name)
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if isGenerated(src) {
			continue
		}
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			// A file that does not parse yet (the user is editing it) does
			// not stop generation; the compiler will tell.
			continue
		}
		uc.add(fset, p, f)
	}
	return uc, nil
}

func (uc *UserCode) add(fset *token.FileSet, p string, f *ast.File) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) == 0 {
				continue
			}
			if t := recvType(d.Recv.List[0].Type); t != "" {
				if uc.Methods[t] == nil {
					uc.Methods[t] = map[string]bool{}
				}
				uc.Methods[t][d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					uc.Types[s.Name.Name] = p
					if st, ok := s.Type.(*ast.StructType); ok {
						for _, fl := range st.Fields.List {
							if len(fl.Names) == 0 {
								uc.Embeds[s.Name.Name] = true
							}
						}
					}
				case *ast.ValueSpec:
					if len(s.Names) != 1 || s.Names[0].Name != "_" || len(s.Values) != 1 {
						continue
					}
					iface, ok := s.Type.(*ast.Ident)
					if !ok {
						continue
					}
					if t := assertedType(s.Values[0]); t != "" {
						uc.Asserts = append(uc.Asserts, Assert{File: p, Iface: iface.Name, Type: t, Line: fset.Position(s.Pos()).Line})
					}
				}
			}
		}
	}
}

// recvType is the type name of a receiver (T, *T, T[P]).
func recvType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// assertedType is T of (*T)(nil), &T{} or T{}.
func assertedType(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.CallExpr:
		if p, ok := x.Fun.(*ast.ParenExpr); ok {
			if s, ok := p.X.(*ast.StarExpr); ok {
				return recvType(s.X)
			}
		}
	case *ast.UnaryExpr:
		return assertedType(x.X)
	case *ast.CompositeLit:
		return recvType(x.Type)
	}
	return ""
}

// implType is the type implementing a tool's handler in the user's code:
// the one asserted to implement it, else <Tool>Impl when declared ("" when
// neither is there).
func (uc *UserCode) implType(n names) string {
	if uc == nil {
		return ""
	}
	for _, a := range uc.Asserts {
		if a.Iface == n.handler() {
			if _, ok := uc.Types[a.Type]; ok {
				return a.Type
			}
		}
	}
	if _, ok := uc.Types[n.base+"Impl"]; ok {
		return n.base + "Impl"
	}
	return ""
}

// UserCodeNotes are the warnings about the hand-written code of a spec's
// output directory: a handler type that lacks a method the spec requires
// (with the method's signature to paste), and a file that implements the
// handler of a tool the spec no longer has. dir is the output directory as
// the messages should name it.
func UserCodeNotes(f *spec.File, uc *UserCode) []string {
	if uc == nil {
		return nil
	}
	g := &gen{f: f}
	var notes []string
	handlers := map[string]bool{}
	for _, t := range f.Workflows() {
		w := newWorkflow(g, t)
		handlers[w.n.handler()] = true
		impl := uc.implType(w.n)
		if impl == "" || uc.Embeds[impl] {
			continue // not written yet, or methods may come from an embedded field
		}
		var missing []string
		for _, m := range w.handlerMethods() {
			if !uc.Methods[impl][m.name] {
				sig := jen.Func().Params(jen.Id("h").Op("*").Id(impl)).Id(m.name).Params(m.params...).Params(m.results...)
				missing = append(missing, "\t"+strings.TrimSpace(fmt.Sprintf("%#v", sig)))
			}
		}
		if len(missing) > 0 {
			notes = append(notes, fmt.Sprintf("%s (%s) lacks %d method(s) that %s %s now requires; add:\n%s",
				impl, filepath.ToSlash(uc.Types[impl]), len(missing), t.Kind, t.Name, strings.Join(missing, "\n")))
		}
	}
	for _, a := range uc.Asserts {
		if !strings.HasSuffix(a.Iface, "Handler") || handlers[a.Iface] {
			continue
		}
		if _, own := uc.Types[a.Iface]; own {
			continue // an interface of the user's own
		}
		notes = append(notes, fmt.Sprintf("%s:%d: %s implements %s, a handler this spec no longer generates (its tool was renamed or removed); delete the file, or move its methods to the new tool's handler",
			filepath.ToSlash(a.File), a.Line, a.Type, a.Iface))
	}
	slices.Sort(notes)
	return slices.Compact(notes)
}
