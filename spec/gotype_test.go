package spec_test

import (
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

// The goType example of docs/spec.md loads, passes lint without findings,
// and binds its values to the types it names.
func TestGoTypeDocExample(t *testing.T) {
	f := docExample(t, "goType: github.com/google/uuid.UUID")
	tool := f.Tools[0]
	for _, tc := range []struct {
		field *spec.Field
		want  spec.GoType
	}{
		{tool.Argument("paymentId"), spec.GoType{Path: "github.com/google/uuid", Name: "UUID"}},
		{tool.Argument("ticket"), spec.GoType{Path: "example.com/app/ids", Name: "TicketID"}},
		{tool.Continuation.Field("balance"), spec.GoType{Name: "Cents"}},
		{tool.State("refunded").OutputField("refundId"), spec.GoType{Path: "github.com/google/uuid", Name: "UUID"}},
	} {
		if g := tc.field.GoType; g == nil || g.Path != tc.want.Path || g.Name != tc.want.Name || g.Pos.Line == 0 {
			t.Errorf("%s: goType %+v, want %+v", tc.field.Name, g, tc.want)
		}
	}
}

// A goType that is not an import path and a type name, on a field it does
// not fit, with a default or under a branch is refused where it is written.
func TestGoTypeMisused(t *testing.T) {
	const base = `version: 1
package: p
tools:
  t:
    description: d
    arguments:
      %s
    initial: done
    states:
      done: {terminal: success, message: ok}
`
	for _, tc := range []struct{ arg, want string }{
		{`a: {type: string, maxLength: 5, goType: github.com/google/uuid}`, `7:47: error: goType "github.com/google/uuid" is not an import path and a type name [field]`},
		{`a: {type: string, maxLength: 5, goType: "*uuid.UUID"}`, `7:47: error: goType "*uuid.UUID" is not an import path and a type name [field]`},
		{`a: {type: string, maxLength: 5, goType: example.com/x.lower}`, `7:47: error: goType "example.com/x.lower": "lower" is not an exported Go type name [field]`},
		{`a: {type: enum, values: [x], goType: example.com/x.T}`, `7:36: error: a: goType applies to strings, numbers, integers and booleans only [field]`},
		{`a: {type: array, maxItems: 2, items: {type: string, maxLength: 3, goType: example.com/x.T}}`, `error: a[]: goType does not apply to array items [field]`},
		{`a: {type: string, maxLength: 5, default: abc, goType: example.com/x.T}`, `7:39: error: a: default does not go with goType`},
	} {
		_, ds := spec.Parse("p.mrtr.yaml", []byte(strings.Replace(base, "%s", tc.arg, 1)), spec.Options{})
		if !ds.HasErrors() || !strings.Contains(ds.Error(), tc.want) {
			t.Errorf("%s:\n got: %v\nwant: %s", tc.arg, ds, tc.want)
		}
	}
	const branch = `version: 1
package: p
tools:
  t:
    description: d
    arguments:
      n: {type: integer, required: true, goType: example.com/x.Count}
    initial: route
    states:
      route: {branch: n, when: [{above: 5, next: big}], default: small}
      big: {terminal: success, message: big}
      small: {terminal: success, message: small}
`
	_, ds := spec.Parse("p.mrtr.yaml", []byte(branch), spec.Options{})
	if !strings.Contains(ds.Error(), `10:23: error: branch "route": argument "n" has Go type example.com/x.Count, which a branch cannot compare [branch]`) {
		t.Errorf("a branch on a goType value: %v", ds)
	}
}
