package generator_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// deprecatedMCP lists the package-level names of the go-sdk's mcp package
// whose doc comment says "Deprecated:", read from the module's source in
// the module cache (the version go.mod requires).
func deprecatedMCP(t *testing.T) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", "github.com/modelcontextprotocol/go-sdk/mcp").Output()
	if err != nil {
		t.Fatalf("go list the go-sdk's mcp package: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	paths, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		deprecated := func(docs ...*ast.CommentGroup) bool {
			for _, d := range docs {
				if d != nil && strings.Contains(d.Text(), "Deprecated:") {
					return true
				}
			}
			return false
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && deprecated(d.Doc) {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if deprecated(d.Doc, s.Doc) {
							names[s.Name.Name] = true
						}
					case *ast.ValueSpec:
						if deprecated(d.Doc, s.Doc) {
							for _, n := range s.Names {
								names[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	if !names["CreateMessageParams"] || !names["ListRootsParams"] {
		t.Fatalf("the go-sdk in %s marks neither CreateMessageParams nor ListRootsParams deprecated; update this test", dir)
	}
	return names
}

// Generated code uses deprecated go-sdk API only where the spec asks for a
// deprecated feature (sampling, roots), and such a file says so with a
// staticcheck directive, so that users' SA1019 checks pass on code they
// cannot edit; a file without such uses carries no directive (staticcheck
// reports a directive that matches nothing).
func TestOutputDeprecatedAPI(t *testing.T) {
	deprecated := deprecatedMCP(t)
	const directive = "//lint:file-ignore SA1019 "
	for name, files := range allOutputs(t) {
		for _, f := range files {
			if !strings.HasSuffix(f.Path, ".go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f.Path, f.Content, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				t.Fatalf("%s: %s: %v", name, f.Path, err)
			}
			mcpName := ""
			for _, im := range file.Imports {
				if p, _ := strconv.Unquote(im.Path.Value); p == "github.com/modelcontextprotocol/go-sdk/mcp" {
					mcpName = "mcp"
					if im.Name != nil {
						mcpName = im.Name.Name
					}
				}
			}
			var uses []string
			ast.Inspect(file, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && mcpName != "" && x.Name == mcpName && deprecated[sel.Sel.Name] {
						uses = append(uses, sel.Sel.Name)
					}
				}
				return true
			})
			has := strings.Contains(string(f.Content), "\n"+directive)
			switch {
			case len(uses) > 0 && !has:
				t.Errorf("%s: %s uses deprecated mcp.%s without a %q directive", name, f.Path, uses[0], directive)
			case len(uses) == 0 && has:
				t.Errorf("%s: %s has a %q directive but uses no deprecated go-sdk API", name, f.Path, directive)
			}
		}
	}
}
