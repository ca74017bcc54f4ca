package breaking

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mrtrgen/mrtrgen/spec"
)

// narrowing lists how nf accepts less than of did, for fields of the same
// wire type: a value of was valid may now be refused. Enum values removed
// are removedValues' (carried values have their own rule for them);
// validators added count only where the build runs them on every round
// (arguments, withValidators).
func narrowing(of, nf *spec.Field, withValidators bool) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	lower := func(name string, o, n *int) { // a larger minimum count
		if n != nil && (o == nil && *n > 0 || o != nil && *n > *o) {
			add("%s %s → %d", name, intText(o, "none"), *n)
		}
	}
	upper := func(name string, o, n *int) { // a smaller maximum count
		if n != nil && (o == nil || *n < *o) {
			add("%s %s → %d", name, intText(o, "none"), *n)
		}
	}
	lower("minLength", of.MinLength, nf.MinLength)
	upper("maxLength", of.MaxLength, nf.MaxLength)
	lower("minItems", of.MinItems, nf.MinItems)
	upper("maxItems", of.MaxItems, nf.MaxItems)
	if nf.Minimum != nil && (of.Minimum == nil || *nf.Minimum > *of.Minimum) {
		add("minimum %s → %s", floatText(of.Minimum), floatText(nf.Minimum))
	}
	if nf.Maximum != nil && (of.Maximum == nil || *nf.Maximum < *of.Maximum) {
		add("maximum %s → %s", floatText(of.Maximum), floatText(nf.Maximum))
	}
	if nf.Pattern != "" && nf.Pattern != of.Pattern {
		add("pattern %s → %q", quotedOr(of.Pattern, "none"), nf.Pattern)
	}
	upper("titleMaxLength", of.TitleMaxLength, nf.TitleMaxLength)
	if nf.TitlePattern != "" && nf.TitlePattern != of.TitlePattern {
		add("titlePattern %s → %q", quotedOr(of.TitlePattern, "none"), nf.TitlePattern)
	}
	if nf.Format != "" && nf.Format != of.Format {
		add("format %s → %s", or(of.Format, "none"), nf.Format)
	}
	if nf.Required && !of.Required {
		add("now required")
	}
	if nf.UniqueItems && !of.UniqueItems {
		add("now uniqueItems")
	}
	if withValidators {
		for _, v := range nf.Validate {
			if !slices.ContainsFunc(of.Validate, func(o spec.NameRef) bool { return o.Name == v.Name }) {
				add("validator %s added", v.Name)
			}
		}
	}
	if of.Items != nil && nf.Items != nil {
		for _, d := range narrowing(of.Items, nf.Items, withValidators) {
			add("items: %s", d)
		}
	}
	return out
}

// removedValues returns the enum values of of that nf no longer allows
// (of the items, for an array of enums).
func removedValues(of, nf *spec.Field) []spec.EnumValue {
	if of.Items != nil && nf.Items != nil {
		return removedValues(of.Items, nf.Items)
	}
	if of.Type != spec.TypeEnum || nf.Type != spec.TypeEnum {
		return nil
	}
	var out []spec.EnumValue
	for _, v := range of.Values {
		if !slices.ContainsFunc(nf.Values, func(n spec.EnumValue) bool { return n.Value == v.Value }) {
			out = append(out, v)
		}
	}
	return out
}

func valuesText(vs []spec.EnumValue, verb string) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = strconv.Quote(v.Value)
	}
	noun := "value"
	if len(vs) > 1 {
		noun = "values"
	}
	return fmt.Sprintf("enum %s %s %s", noun, strings.Join(names, ", "), verb)
}

func intText(p *int, none string) string {
	if p == nil {
		return none
	}
	return strconv.Itoa(*p)
}

func floatText(p *float64) string {
	if p == nil {
		return "none"
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

func or(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

func quotedOr(s, none string) string {
	if s == "" {
		return none
	}
	return strconv.Quote(s)
}

// jsonType is the JSON Schema type a client sees for a field.
func jsonType(f *spec.Field) string {
	if f.Type == spec.TypeEnum {
		return "string"
	}
	if f.Type == spec.TypeArray && f.Items != nil {
		return "array of " + jsonType(f.Items)
	}
	return f.Type.String()
}

// widensForClients reports whether a client value valid under of stays
// valid under nf's JSON type: every integer is a number, every enum value a
// string.
func widensForClients(of, nf *spec.Field) bool {
	return of.Type == spec.TypeInteger && nf.Type == spec.TypeNumber
}

// argChangeKind is what a change of an argument does to clients.
type argChangeKind int

const (
	argClientSafe    argChangeKind = iota // clients do not notice
	argRemoved                            // clients that send it are refused
	argAddedRequired                      // clients that do not send it are refused
	argRetyped                            // clients send the old type
	argNarrowed                           // some values clients send are refused
)

// argChange is one argument that differs between the versions.
type argChange struct {
	kind     argChangeKind
	old, new *spec.Field
	detail   string // what changed, for the message
	// binding: tokens minted by the old build no longer bind to the
	// arguments clients send with the next round (docs/evolution.md,
	// argument-changed): any wire change, removal, newly required argument
	// or narrowing.
	binding bool
}

// argChanges compares the arguments of one workflow, by name.
func argChanges(ot, nt *spec.Tool) []argChange {
	var out []argChange
	for _, of := range ot.Arguments {
		nf := nt.Argument(of.Name)
		if nf == nil {
			out = append(out, argChange{kind: argRemoved, old: of, detail: "was removed", binding: true})
			continue
		}
		if ch, ok := argChanged(of, nf); ok {
			out = append(out, ch)
		}
	}
	for _, nf := range nt.Arguments {
		if nf.Required && ot.Argument(nf.Name) == nil {
			out = append(out, argChange{kind: argAddedRequired, new: nf, detail: "was added as required", binding: true})
		}
	}
	return out
}

func argChanged(of, nf *spec.Field) (argChange, bool) {
	ch := argChange{old: of, new: nf, binding: of.WireType() != nf.WireType()}
	switch {
	case jsonType(of) != jsonType(nf) && !widensForClients(of, nf):
		ch.kind, ch.detail = argRetyped, fmt.Sprintf("changed type from %s to %s", jsonType(of), jsonType(nf))
		return ch, true
	case of.Type == spec.TypeString && nf.Type == spec.TypeEnum:
		ch.kind, ch.detail = argNarrowed, "is now an enum"
		return ch, true
	}
	diffs := narrowing(of, nf, true)
	if vs := removedValues(of, nf); len(vs) > 0 {
		diffs = append([]string{valuesText(vs, "removed")}, diffs...)
	}
	if len(diffs) > 0 {
		ch.kind, ch.detail, ch.binding = argNarrowed, "narrowed: "+strings.Join(diffs, "; "), true
		return ch, true
	}
	if ch.binding {
		ch.detail = fmt.Sprintf("changed its wire type from %s to %s", of.WireType(), nf.WireType())
		return ch, true
	}
	return ch, false
}
