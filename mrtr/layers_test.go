package mrtr_test

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// The inside of package mrtr is four layers of files (docs/architecture.md,
// "Inside mrtr"), named by their prefix, each using only its own layer and
// the layers below it:
//
//	wire*.go    MCP requests and sessions: go-sdk, HTTP, eras, cancellation, tasks, resources
//	round*.go   what happens with this request: the trust boundary, states, answers, effects, replies
//	record*.go  claims, round and effect records, continuations (sealed, or at rest in the store)
//	the rest    what all of them share: Engine and Config, the types handlers see, errors, telemetry
//
// A declaration (a function, a method, a type, a field) belongs to the
// layer of its file; TestLayers fails when a file uses a declaration of a
// layer above its own. A new file without a prefix is in the bottom layer,
// so it may use nothing above it until it is named for where it belongs.
type layer int

const (
	engineLayer layer = iota
	recordsLayer
	roundLayer
	wireLayer
)

func (l layer) String() string { return [...]string{"engine", "records", "round", "wire"}[l] }

// mayImport lists, for each layer, the packages outside the standard
// library (and net/http in it) its files may import. The store, seals and
// encodings are below the records; the descriptor (mrtrimpl) and the
// shapes of MCP questions and answers (go-sdk's mcp package) are data
// every layer reads; JSON-RPC errors are made in the engine layer
// (errors.go) and decided on in the round; sessions, HTTP, the Tasks
// extension's protocol and resources are the wire's alone.
var mayImport = map[layer][]string{
	engineLayer: {mod + "/mrtr/mrtrimpl", mod + "/mrtr/seal", mod + "/mrtr/store", mod + "/vocab",
		mod + "/mrtr/approval", mod + "/mrtr/tasks", mod + "/mrtr/internal/handlertypes", mod + "/mrtr/internal/progress",
		mod + "/mrtr/internal/failure", mod + "/mrtr/internal/otelx", sdk + "/mcp", sdk + "/jsonrpc", "go.opentelemetry.io/otel/"},
	recordsLayer: {mod + "/mrtr/mrtrimpl", mod + "/mrtr/seal", mod + "/mrtr/store", mod + "/vocab", mod + "/mrtr/binenc",
		sdk + "/mcp", "github.com/segmentio/encoding/json"},
	roundLayer: {mod + "/mrtr/mrtrimpl", mod + "/mrtr/seal", mod + "/mrtr/store", mod + "/vocab", mod + "/mrtr/binenc",
		mod + "/mrtr/approval", mod + "/mrtr/tasks", mod + "/mrtr/problem", mod + "/internal/machine",
		mod + "/mrtr/internal/response", mod + "/mrtr/internal/stepkind", mod + "/mrtr/internal/failure",
		sdk + "/mcp", sdk + "/jsonrpc"},
	wireLayer: {mod + "/mrtr/mrtrimpl", mod + "/mrtr/seal", mod + "/mrtr/tasks", mod + "/vocab",
		mod + "/mrtr/internal/jsonkeys", sdk + "/mcp", sdk + "/jsonrpc", "github.com/segmentio/encoding/json", "net/http"},
}

const (
	mod = "github.com/mrtrgen/mrtrgen"
	sdk = "github.com/modelcontextprotocol/go-sdk"
)

// allowed reports whether a file of layer l may import path.
func allowed(l layer, path string) bool {
	if !strings.Contains(path, ".") && path != "net/http" {
		return true // the standard library
	}
	for _, p := range mayImport[l] {
		if path == p || (strings.HasSuffix(p, "/") && strings.HasPrefix(path, p)) {
			return true
		}
	}
	return false
}

func layerOf(file string) layer {
	switch {
	case strings.HasPrefix(file, "wire"):
		return wireLayer
	case strings.HasPrefix(file, "round"):
		return roundLayer
	case strings.HasPrefix(file, "record"):
		return recordsLayer
	}
	return engineLayer
}

func TestLayers(t *testing.T) {
	pkgs, err := packages.Load(&packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
	}, "github.com/mrtrgen/mrtrgen/mrtr")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("loading package mrtr: %v", pkgs)
	}
	p := pkgs[0]
	fileOf := func(n ast.Node) string { return filepath.Base(p.Fset.Position(n.Pos()).Filename) }

	// Where each declaration is: package-level names, methods and fields.
	declaredIn := map[types.Object]string{}
	for id, obj := range p.TypesInfo.Defs {
		if obj == nil {
			continue
		}
		if obj.Parent() == p.Types.Scope() || isMethodOrField(obj) {
			declaredIn[obj] = fileOf(id)
		}
	}
	for _, f := range p.Syntax {
		name := fileOf(f)
		own := layerOf(name)
		for _, spec := range f.Imports {
			if path := strings.Trim(spec.Path.Value, `"`); !allowed(own, path) {
				t.Errorf("%s: %s (layer %s) imports %s, which that layer may not (mayImport in layers_test.go)", p.Fset.Position(spec.Pos()), name, own, path)
			}
		}
		seen := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			at, ok := declaredIn[origin(p.TypesInfo.Uses[id])]
			if !ok {
				return true
			}
			if l := layerOf(at); l > own && !seen[at+"."+id.Name] {
				seen[at+"."+id.Name] = true
				t.Errorf("%s: %s (layer %s) uses %s of %s (layer %s, above it)", p.Fset.Position(id.Pos()), name, own, id.Name, at, l)
			}
			return true
		})
	}
}

// origin is the declared object of a use: a method or field of a generic
// type is used through its instantiation (run[F].deferRound).
func origin(o types.Object) types.Object {
	switch o := o.(type) {
	case *types.Func:
		return o.Origin()
	case *types.Var:
		return o.Origin()
	}
	return o
}

func isMethodOrField(o types.Object) bool {
	switch o := o.(type) {
	case *types.Func:
		return o.Signature().Recv() != nil
	case *types.Var:
		return o.IsField()
	}
	return false
}

// TestRuntimeFilesAreShort: no hand-written file of the runtime (mrtr/
// and below, tests and generated code left out) is over 500 lines: a file
// reads top to bottom in minutes.
func TestRuntimeFilesAreShort(t *testing.T) {
	const most = 500
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			slices.Contains(strings.Split(path, string(filepath.Separator)), "testdata") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if generated(b) {
			return nil
		}
		if n := bytes.Count(b, []byte("\n")); n > most {
			t.Errorf("mrtr/%s: %d lines (at most %d): split it by what its parts do", filepath.ToSlash(path), n, most)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// generated reports whether b is a generated Go file (the standard header
// line before the package clause).
func generated(b []byte) bool {
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		line := s.Text()
		if strings.HasPrefix(line, "package ") {
			return false
		}
		if strings.HasPrefix(line, "// Code generated ") && strings.HasSuffix(line, " DO NOT EDIT.") {
			return true
		}
	}
	return false
}
