package generator

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/mrtrgen/mrtrgen/spec"
)

// Values bound to a Go type of the user's (goType: github.com/google/uuid.UUID)
// keep their JSON form everywhere but in the structs handlers see: generated
// code validates, renders and carries the JSON form (string, int64, float64
// or bool), and converts at the edges with package jsonform, through the
// type's own MarshalJSON/MarshalText or its kind. So the schemas, the checks
// and the continuation's bytes are those of the field without goType, and
// the generated code does not depend on how the type marshals (mrtrgen
// generate and check verify that, in package internal/gotypecheck).

const pkgJSONForm = "github.com/mrtrgen/mrtrgen/mrtr/jsonform"

// userType is the Go type goType names.
func userType(f *spec.Field) *jen.Statement {
	if f.GoType.Path == "" {
		return jen.Id(f.GoType.Name) // a type of the generated package
	}
	return jen.Qual(f.GoType.Path, f.GoType.Name)
}

// wireType is the Go type of field f's JSON form.
func wireType(f *spec.Field) *jen.Statement {
	switch f.Type {
	case spec.TypeNumber:
		return jen.Float64()
	case spec.TypeInteger:
		return jen.Int64()
	case spec.TypeBoolean:
		return jen.Bool()
	}
	return jen.String()
}

// wire is the JSON form of Go value v of field f: v itself without goType,
// else jsonform.Value (the value was taken from its JSON form, or checked to
// have one by CheckContinuation or the output check).
func wire(f *spec.Field, v *jen.Statement) *jen.Statement {
	if f == nil || f.GoType == nil {
		return v
	}
	return jen.Qual(pkgJSONForm, "Value").Types(wireType(f)).Call(v)
}

// fromWireMust is the Go value of JSON form literal lit for field f, in a
// generated test's fixtures.
func fromWireMust(f *spec.Field, lit *jen.Statement) *jen.Statement {
	if f.Type == spec.TypeInteger {
		lit = jen.Int64().Call(lit) // an untyped constant would be an int
	}
	return jen.Qual(pkgJSONForm, "Must").Types(userType(f)).Call(lit)
}

// convertProblem is the statement recording that value v of field f, named
// label, does not convert: err says why.
func convertProblem(label string) *jen.Statement {
	return problemCall("Add", jen.Lit(label+": ").Op("+").Err().Dot("Error").Call())
}

// wireLit is JSON example value v of field f as a literal of its JSON form.
func wireLit(f *spec.Field, v any) *jen.Statement {
	switch f.Type {
	case spec.TypeInteger:
		return intLit(toInt(v))
	case spec.TypeNumber:
		x, _ := asNumber(v)
		return jen.Lit(x)
	case spec.TypeBoolean:
		b, _ := v.(bool)
		return jen.Lit(b)
	}
	return jen.Lit(fmt.Sprint(v))
}
