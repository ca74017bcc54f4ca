package mrtrimpl

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strings"
	"testing"
)

// exported lists the exported top-level names of the non-test files of the
// package in dir.
func exported(t *testing.T, dir string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, dir+"/"+e.Name(), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for name := range topLevel(f) {
			if ast.IsExported(name) {
				names[name] = true
			}
		}
	}
	return names
}

func topLevel(f *ast.File) map[string]bool {
	names := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names[n.Name] = true
					}
				}
			}
		}
	}
	return names
}

// The plumbing exports no name of package mrtr (a handler author finds
// each name once, in mrtr), exactly one version guard, and no more names
// than it did when the bound was last lowered.
func TestExportedNames(t *testing.T) {
	impl, api := exported(t, "."), exported(t, "..")
	var dup, guards []string
	for n := range impl {
		if api[n] {
			dup = append(dup, n)
		}
		if strings.HasPrefix(n, "SupportPackageIsVersion") {
			guards = append(guards, n)
		}
	}
	sort.Strings(dup)
	if len(dup) > 0 {
		t.Errorf("mrtrimpl exports names of package mrtr: %v; handler-facing names live in mrtr once", dup)
	}
	if len(guards) != 1 {
		t.Errorf("live version guards %v, want exactly one", guards)
	}
	const bound = 33 // issue 29 asked for at most 60 (88 before: the plumbing's non-generic functions are now methods of X, the answer types are mrtr's)
	if len(impl) > bound {
		t.Errorf("mrtrimpl exports %d top-level names, more than %d", len(impl), bound)
	}
}
