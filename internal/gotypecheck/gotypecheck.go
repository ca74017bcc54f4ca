// Package gotypecheck checks the Go types a spec binds values to (goType)
// against the user's module, as mrtrgen generate and check do before
// generating: the generator itself stays pure (the spec alone decides its
// bytes), and this is the one place that runs the go command.
package gotypecheck

import (
	"fmt"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/mrtrgen/mrtrgen/spec"
)

// Check checks every goType of spec f against the Go code it names,
// as the go command of the output directory dir sees it (the user's module
// and its dependencies): the type exists and has a JSON form of the field's
// type, through MarshalJSON and UnmarshalJSON, through MarshalText and
// UnmarshalText for a string, or through its underlying kind. A goType
// without an import path is looked up in the package at dir. Each problem is
// a finding at the goType value, rule go-type; a package that does not load
// is one too.
func Check(f *spec.File, dir string) spec.Diagnostics {
	fields := goTypeFields(f)
	if len(fields) == 0 {
		return nil
	}
	paths := []string{"encoding", "encoding/json"}
	for _, fd := range fields {
		if p := fd.GoType.Path; p != "" && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		absDir = dir
	}
	// go list runs where the code goes, or (before a first generate made it)
	// in the nearest directory that exists: the same module.
	loadDir := existingDir(absDir)
	exists := loadDir == absDir
	patterns := slices.Clone(paths)
	if exists {
		patterns = append(patterns, ".") // the generated package: its own types
	}
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedTypes, Dir: loadDir}
	var ds spec.Diagnostics
	finding := func(fd *spec.Field, hint, format string, args ...any) {
		ds = append(ds, spec.Diagnostic{Pos: fd.GoType.Pos, Severity: spec.Error, Rule: "go-type", Message: fmt.Sprintf("%s: ", fd.Name) + fmt.Sprintf(format, args...), Hint: hint})
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		for _, fd := range fields {
			finding(fd, "run mrtrgen from the module that has the type (go list must work in "+loadDir+")", "cannot load the Go packages of goType %s: %v", fd.GoType, err)
		}
		return ds
	}
	byPath := map[string]*packages.Package{}
	var here *packages.Package
	for _, p := range pkgs {
		byPath[p.PkgPath] = p
		if exists && here == nil && inDir(p, absDir) {
			here = p
		}
	}
	ifaces := jsonInterfaces(byPath)
	for _, fd := range fields {
		p := byPath[fd.GoType.Path]
		if fd.GoType.Path == "" {
			p = here
		}
		switch {
		case here != nil && fd.GoType.Path == here.PkgPath:
			// The generated code would import its own package.
			finding(fd, "write the type's name alone: "+fd.GoType.Name, "goType %s is in the generated package itself", fd.GoType)
			continue
		case p == nil && fd.GoType.Path == "":
			finding(fd, "declare the type in a Go file of the output directory "+dir+", or write its import path", "no Go package at %s declares %s", dir, fd.GoType.Name)
			continue
		case p == nil || p.Types == nil || p.Types.Scope() == nil || len(p.Errors) > 0 && p.Types.Scope().Lookup(fd.GoType.Name) == nil:
			hint := "add the module that has it: go get " + fd.GoType.Path
			if p != nil && len(p.Errors) > 0 {
				hint = strings.ReplaceAll(p.Errors[0].Msg, "\n", " ")
			}
			finding(fd, hint, "package %s of goType %s does not load", pathOr(fd.GoType.Path, dir), fd.GoType)
			continue
		}
		obj, ok := p.Types.Scope().Lookup(fd.GoType.Name).(*types.TypeName)
		if !ok {
			finding(fd, suggestType(p.Types, fd.GoType.Name), "package %s declares no type %s", pathOr(p.PkgPath, dir), fd.GoType.Name)
			continue
		}
		if msg, hint := jsonFormProblem(obj.Type(), fd, ifaces); msg != "" {
			finding(fd, hint, "%s", msg)
		}
	}
	return ds
}

// goTypeFields lists the fields of f that have a goType, in spec order.
func goTypeFields(f *spec.File) []*spec.Field {
	var out []*spec.Field
	add := func(fs []*spec.Field) {
		for _, fd := range fs {
			if fd.GoType != nil && !slices.Contains(out, fd) {
				out = append(out, fd)
			}
		}
	}
	for _, t := range f.Workflows() {
		add(t.Arguments)
		add(t.Continuation.Fields)
		for _, q := range t.Requests() {
			add(q.Fields)
		}
		for _, s := range t.OutputStates() {
			add(s.Output)
		}
	}
	return out
}

// interfaces are json.Marshaler, json.Unmarshaler, encoding.TextMarshaler
// and encoding.TextUnmarshaler (nil when they did not load).
type interfaces struct{ marshalJSON, unmarshalJSON, marshalText, unmarshalText *types.Interface }

func jsonInterfaces(byPath map[string]*packages.Package) interfaces {
	iface := func(path, name string) *types.Interface {
		p := byPath[path]
		if p == nil || p.Types == nil {
			return nil
		}
		if o, ok := p.Types.Scope().Lookup(name).(*types.TypeName); ok {
			if it, ok := o.Type().Underlying().(*types.Interface); ok {
				return it
			}
		}
		return nil
	}
	return interfaces{iface("encoding/json", "Marshaler"), iface("encoding/json", "Unmarshaler"),
		iface("encoding", "TextMarshaler"), iface("encoding", "TextUnmarshaler")}
}

// implements reports whether t or *t implements it (generated code marshals
// through a pointer, so methods on either receiver count).
func implements(t types.Type, it *types.Interface) bool {
	return it != nil && (types.Implements(t, it) || types.Implements(types.NewPointer(t), it))
}

// jsonFormProblem says why Go type t cannot stand for field fd's JSON
// type, with a hint, or "" when it can.
func jsonFormProblem(t types.Type, fd *spec.Field, in interfaces) (msg, hint string) {
	name := fd.GoType.String()
	if _, ok := t.Underlying().(*types.Interface); ok {
		return fmt.Sprintf("goType %s is an interface; a value needs a concrete type", name), "name a concrete type"
	}
	if n, ok := t.(*types.Named); ok && n.TypeParams().Len() > 0 {
		return fmt.Sprintf("goType %s is generic", name), "declare a named instance: type Amount = Money[EUR], or type Amount Money[EUR]"
	}
	want := jsonWord(fd.Type)
	switch {
	case implements(t, in.marshalJSON):
		if !implements(t, in.unmarshalJSON) {
			return fmt.Sprintf("goType %s has MarshalJSON but not UnmarshalJSON: %s sent by a client cannot become one", name, want), "declare UnmarshalJSON on *" + fd.GoType.Name
		}
		return "", "" // its JSON type is what MarshalJSON writes: checked on every value at run time
	case implements(t, in.marshalText):
		if fd.Type != spec.TypeString {
			return fmt.Sprintf("goType %s marshals to a JSON string (MarshalText), but %s is %s", name, fd.Name, want), "declare the field type: string, or name a type whose JSON form is " + jsonWord(fd.Type)
		}
		if !implements(t, in.unmarshalText) {
			return fmt.Sprintf("goType %s has MarshalText but not UnmarshalText: a string sent by a client cannot become one", name), "declare UnmarshalText on *" + fd.GoType.Name
		}
		return "", ""
	}
	b, ok := t.Underlying().(*types.Basic)
	kind := types.TypeString(t.Underlying(), nil)
	if !ok {
		return fmt.Sprintf("goType %s has no JSON form that is %s: it has no MarshalJSON or MarshalText, and its underlying type is %s", name, want, kind),
			"give the type MarshalJSON and UnmarshalJSON (or MarshalText and UnmarshalText for a string), or name another type"
	}
	info := b.Info()
	fits := false
	switch fd.Type {
	case spec.TypeString:
		fits = info&types.IsString != 0
	case spec.TypeInteger:
		fits = info&types.IsInteger != 0
	case spec.TypeNumber:
		fits = info&types.IsFloat != 0
	case spec.TypeBoolean:
		fits = info&types.IsBoolean != 0
	}
	if !fits {
		return fmt.Sprintf("goType %s is %s in JSON (its underlying type is %s), but %s is %s", name, kindWord(info), kind, fd.Name, want),
			"declare the field as " + kindType(info) + ", or name a type whose JSON form is " + jsonWord(fd.Type)
	}
	return "", ""
}

func jsonWord(t spec.FieldType) string {
	switch t {
	case spec.TypeInteger:
		return "an integer"
	case spec.TypeNumber:
		return "a number"
	case spec.TypeBoolean:
		return "a boolean"
	}
	return "a string"
}

// basicKinds are the JSON types of Go's basic kinds: as a spec writes
// them (type: string) and as a finding says them (a string).
var basicKinds = []struct {
	mask       types.BasicInfo
	typ, words string
}{
	{types.IsString, "string", "a string"},
	{types.IsInteger, "integer", "an integer"},
	{types.IsFloat, "number", "a number"},
	{types.IsBoolean, "boolean", "a boolean"},
}

func kindWord(info types.BasicInfo) string {
	for _, k := range basicKinds {
		if info&k.mask != 0 {
			return k.words
		}
	}
	return "a value of no JSON type"
}

func kindType(info types.BasicInfo) string {
	for _, k := range basicKinds {
		if info&k.mask != 0 {
			return "type: " + k.typ
		}
	}
	return "another type"
}

// suggestType names the package's exported types close to name, as a hint.
func suggestType(p *types.Package, name string) string {
	var near []string
	for _, n := range p.Scope().Names() {
		if _, ok := p.Scope().Lookup(n).(*types.TypeName); ok && strings.EqualFold(n, name) {
			near = append(near, n)
		}
	}
	if len(near) > 0 {
		return "did you mean " + strings.Join(near, ", ") + "?"
	}
	return "name a type the package declares"
}

// existingDir is dir, or its nearest ancestor that exists (the output
// directory of a first generate may not yet).
func existingDir(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// inDir reports whether package p is the one in directory dir.
func inDir(p *packages.Package, dir string) bool {
	for _, f := range append(slices.Clone(p.GoFiles), p.CompiledGoFiles...) {
		if filepath.Dir(f) == dir {
			return true
		}
	}
	return false
}

func pathOr(p, dir string) string {
	if p == "" {
		return dir
	}
	return p
}
