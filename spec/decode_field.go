package spec

import (
	"go/token"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// fieldRole says where a field sits; each role allows different keys.
type fieldRole int

const (
	fieldArgument fieldRole = iota + 1
	fieldContinuation
	fieldForm
	fieldItems
	fieldOutput
)

var fieldTypeByName = map[string]FieldType{
	"string": TypeString, "number": TypeNumber, "integer": TypeInteger,
	"boolean": TypeBoolean, "enum": TypeEnum, "array": TypeArray, "option": TypeOption,
}

// fieldDoc is one field: an argument, a continuation, form or output
// field, or an array's items. The schema allows every key on every field;
// fieldKeyFits says which fit the field's type and role. Its default and
// example, of any type (null included), are read from the mapping once the
// type is known.
type fieldDoc struct {
	Type, Title, Description, Format          string
	Required, Sensitive                       bool
	UniqueItems                               bool `yaml:"uniqueItems"`
	Pattern, Minimum, Maximum, Values, Titles ynode
	Items, Validate, Complete, Lint           ynode
	MinLength                                 ynode `yaml:"minLength"`
	MaxLength                                 ynode `yaml:"maxLength"`
	TitleMaxLength                            ynode `yaml:"titleMaxLength"`
	TitlePattern                              ynode `yaml:"titlePattern"`
	ValuesFrom                                ynode `yaml:"valuesFrom"`
	MinItems                                  ynode `yaml:"minItems"`
	MaxItems                                  ynode `yaml:"maxItems"`
	GoType                                    ynode `yaml:"goType"`
}

func (d *decoder) decodeFields(n *yaml.Node, role fieldRole) []*Field {
	var fs []*Field
	for i, p := range pairs(n) {
		d.checkIdent(p.k, "field")
		f := d.decodeField(p.key, p.k, p.v, role)
		f.Written = i
		fs = append(fs, f)
	}
	slices.SortFunc(fs, func(a, b *Field) int { return strings.Compare(a.Name, b.Name) })
	return fs
}

// decodeField decodes one field: its keys, then the titles of its enum
// values, then (once its type and values are known) its default and
// example.
func (d *decoder) decodeField(name string, k, n *yaml.Node, role fieldRole) *Field {
	f := &Field{Name: name, Pos: d.pos(k)}
	var doc fieldDoc
	decodeInto(n, &doc)
	keys := keyNodes(n)
	d.fieldKeys(f, &doc, keys, role)
	d.titleValues(f, doc.Titles.Node)
	d.checkFieldKeys(f, keys, n, role)
	if f.ValuesFrom != nil {
		return f // its values are not known: a default or example is refused above
	}
	// A default or example is any value: a null one is refused too.
	if _, v := keyValue(n, "default"); v != nil {
		f.Default = d.decodeValue(f, v, "default")
	}
	if _, v := keyValue(n, "example"); v != nil {
		f.Example = d.decodeValue(f, v, "example")
	}
	return f
}

// fieldKeys fills in f from the field's document, all but its enum
// values' titles, default and example.
func (d *decoder) fieldKeys(f *Field, doc *fieldDoc, keys map[string]*yaml.Node, role fieldRole) {
	f.Type = fieldTypeByName[doc.Type]
	f.Title, f.Description, f.Format = doc.Title, doc.Description, doc.Format
	f.Required, f.UniqueItems, f.Sensitive = doc.Required, doc.UniqueItems, doc.Sensitive
	f.MinLength, f.MaxLength, f.TitleMaxLength = d.optInt(doc.MinLength), d.optInt(doc.MaxLength), d.optInt(doc.TitleMaxLength)
	f.MinItems, f.MaxItems = d.optInt(doc.MinItems), d.optInt(doc.MaxItems)
	f.Minimum, f.Maximum = d.optFloat(doc.Minimum), d.optFloat(doc.Maximum)
	f.ValuesFrom = d.nameRef(doc.ValuesFrom)
	if p := doc.Pattern.Node; p != nil {
		f.Pattern, f.Regexp = p.Value, d.pattern(p)
	}
	if p := doc.TitlePattern.Node; p != nil {
		f.TitlePattern, f.TitleRegexp = p.Value, d.pattern(p)
	}
	if doc.Values.Node != nil {
		d.addEnumValues(f, doc.Values.Node)
	}
	if doc.Items.Node != nil {
		f.Items = d.decodeField(f.Name+"[]", keys["items"], doc.Items.Node, fieldItems)
	}
	if doc.Validate.Node != nil {
		for _, v := range doc.Validate.Content {
			f.Validate = append(f.Validate, NameRef{Name: v.Value, Pos: d.pos(v)})
		}
	}
	if doc.Complete.Node != nil {
		f.Complete = d.decodeCompletion(doc.Complete.Node)
		if role != fieldArgument || d.kind == vocab.KindTool {
			d.errorf(keys["complete"], "field", "complete applies to prompt arguments and resource template variables", "field %q: complete does not apply here", f.Name)
		}
	}
	if doc.Lint.Node != nil {
		f.Lint = d.decodeLint(doc.Lint.Node)
	}
	if n := doc.GoType.Node; n != nil {
		f.GoType = d.goType(n)
	}
}

// goType reads a goType value: an import path, a dot and an exported type
// name (nil, reported, when it is not one).
func (d *decoder) goType(n *yaml.Node) *GoType {
	const hint = "write the import path and the type name: github.com/google/uuid.UUID, example.com/app/ids.TicketID, or only the name of a type of the spec's own package: TicketID"
	v := n.Value
	if n.Kind == yaml.ScalarNode && token.IsIdentifier(v) {
		return &GoType{Name: v, Pos: d.pos(n)} // declared in the generated package
	}
	i := strings.LastIndexByte(v, '.')
	if n.Kind != yaml.ScalarNode || i <= 0 || i < strings.LastIndexByte(v, '/') || strings.ContainsAny(v, " \t*[]") {
		d.errorf(n, "field", hint+" (a pointer is not written: an optional value is one already)", "goType %q is not an import path and a type name", v)
		return nil
	}
	name := v[i+1:]
	if !token.IsIdentifier(name) || !token.IsExported(name) {
		d.errorf(n, "field", hint, "goType %q: %q is not an exported Go type name", v, name)
		return nil
	}
	return &GoType{Path: v[:i], Name: name, Pos: d.pos(n)}
}

// pattern compiles a field's pattern, anchored at both ends as JSON
// Schema's is not (nil, reported, when it does not compile).
func (d *decoder) pattern(n *yaml.Node) *regexp.Regexp {
	re, err := regexp.Compile(`^(?:` + n.Value + `)$`)
	if err != nil {
		d.errorf(n, "bad-regex", "patterns use Go's RE2 syntax (no lookaround or backreferences)", "pattern %q does not compile: %v", n.Value, err)
	}
	return re
}

// addEnumValues appends the values of an enum to f in the order written,
// reporting a value listed twice.
func (d *decoder) addEnumValues(f *Field, n *yaml.Node) {
	for _, v := range n.Content {
		if slices.ContainsFunc(f.Values, func(e EnumValue) bool { return e.Value == v.Value }) {
			d.errorf(v, "schema", "", "enum value %q is listed twice", v.Value)
		}
		f.Values = append(f.Values, EnumValue{Value: v.Value, Pos: d.pos(v)})
	}
}

// titleValues gives the enum values of f the titles of a titles: mapping,
// keyed by value.
func (d *decoder) titleValues(f *Field, titles *yaml.Node) {
	for _, tp := range pairs(titles) {
		i := slices.IndexFunc(f.Values, func(e EnumValue) bool { return e.Value == tp.key })
		if i < 0 {
			d.errorf(tp.k, "schema", "titles are keyed by enum value", "title for %q, which is not one of the values", tp.key)
			continue
		}
		f.Values[i].Title = tp.v.Value
	}
}

// keyFit says which fields a key fits: those of a type or role for which
// fits holds; on another, the key is reported with why.
type keyFit struct {
	key  string
	fits func(f *Field, role fieldRole) bool
	why  string
}

func stringy(f *Field, _ fieldRole) bool { return f.Type == TypeString || f.Type == TypeOption }
func numeric(f *Field, _ fieldRole) bool { return f.Type == TypeNumber || f.Type == TypeInteger }
func ofType(t FieldType) func(*Field, fieldRole) bool {
	return func(f *Field, _ fieldRole) bool { return f.Type == t }
}
func inRoles(roles ...fieldRole) func(*Field, fieldRole) bool {
	return func(_ *Field, role fieldRole) bool { return slices.Contains(roles, role) }
}

func notIn(roles ...fieldRole) func(*Field, fieldRole) bool {
	return func(_ *Field, role fieldRole) bool { return !slices.Contains(roles, role) }
}

// fieldKeyFits are the keys of a field that fit some types or roles only.
// An option's value is a string, with a string's constraints.
var fieldKeyFits = []keyFit{
	{"minLength", stringy, "applies to strings and option values only"},
	{"maxLength", stringy, "applies to strings and option values only"},
	{"pattern", stringy, "applies to strings and option values only"},
	{"format", ofType(TypeString), "applies to strings only"},
	{"titleMaxLength", ofType(TypeOption), "applies to options only (it bounds an option's title)"},
	{"titlePattern", ofType(TypeOption), "applies to options only (it constrains an option's title)"},
	{"valuesFrom", ofType(TypeEnum), "applies to enums only"},
	{"valuesFrom", inRoles(fieldForm, fieldItems), "applies to form fields only (the options are offered in a form)"},
	{"minimum", numeric, "applies to numbers and integers only"},
	{"maximum", numeric, "applies to numbers and integers only"},
	{"values", ofType(TypeEnum), "applies to enums only"},
	{"titles", ofType(TypeEnum), "applies to enums only"},
	{"items", ofType(TypeArray), "applies to arrays only"},
	{"minItems", ofType(TypeArray), "applies to arrays only"},
	{"maxItems", ofType(TypeArray), "applies to arrays only"},
	{"uniqueItems", ofType(TypeArray), "applies to arrays only"},
	{"uniqueItems", inRoles(fieldArgument, fieldForm), "applies to arguments and form fields only (continuation lists of enum values are always made distinct)"},
	{"sensitive", inRoles(fieldContinuation, fieldForm), "applies to continuation and form fields only (an output goes to the client: keep secrets out of it)"},
	{"required", inRoles(fieldArgument, fieldForm, fieldOutput), "applies to arguments, form and output fields only"},
	{"default", inRoles(fieldArgument, fieldForm), "applies to arguments and form fields only"},
	{"example", notIn(fieldItems), "applies to the array, not its items"},
	{"validate", notIn(fieldContinuation, fieldOutput), "does not apply to continuation or output fields (the server sets them)"},
	{"required", notIn(fieldItems), "does not apply to array items"},
	{"default", notIn(fieldItems), "does not apply to array items"},
	{"goType", scalar, "applies to strings, numbers, integers and booleans only"},
	{"goType", notIn(fieldItems), "does not apply to array items"},
}

func scalar(f *Field, _ fieldRole) bool {
	return f.Type == TypeString || f.Type == TypeNumber || f.Type == TypeInteger || f.Type == TypeBoolean
}

// checkFieldKeys reports keys that do not fit the field's type or role,
// and constraints that contradict each other.
func (d *decoder) checkFieldKeys(f *Field, keys map[string]*yaml.Node, n *yaml.Node, role fieldRole) {
	for _, kf := range fieldKeyFits {
		if k := keys[kf.key]; k != nil && !kf.fits(f, role) {
			d.errorf(k, "field", "", "%s: %s %s", f.Name, kf.key, kf.why)
		}
	}
	d.checkDynamicKeys(f, keys, role)
	if k := keys["default"]; k != nil && keys["goType"] != nil {
		d.errorf(k, "field", "leave the value optional (absent is a nil pointer) and choose the default in the handler", "%s: default does not go with goType (the Go value of a default is made by the type's own code at run time)", f.Name)
	}
	if f.Type == TypeArray {
		d.checkArrayField(f, keys, n, role)
	}
	d.checkBounds(f, keys)
}

// checkArrayField reports an array without items, or with items of a
// kind its role cannot have.
func (d *decoder) checkArrayField(f *Field, keys map[string]*yaml.Node, n *yaml.Node, role fieldRole) {
	switch {
	case f.Items == nil:
		d.errorf(n, "field", "add items: {type: enum, values: [...]} or items: {type: string, maxLength: ...}", "%s: an array needs items", f.Name)
	case f.Items.Type == TypeArray:
		d.errorf(keys["items"], "field", "", "%s: arrays of arrays are not supported", f.Name)
	case role == fieldForm && f.Items.Type != TypeEnum:
		d.errorf(keys["items"], "field", "MCP forms allow multi-select enums only", "%s: form arrays must have enum items", f.Name)
	case role != fieldForm && f.Items.ValuesFrom != nil:
		d.errorf(keys["items"], "field", "offer discovered options in a form field", "%s: valuesFrom applies to form fields only", f.Name)
	case role != fieldContinuation && f.Items.Type == TypeOption:
		d.errorf(keys["items"], "field", "a check fills a continuation list of options; a form field offers it with valuesFrom", "%s: lists of options are continuation fields only", f.Name)
	case f.Items.Type == TypeEnum && f.Items.ValuesFrom == nil && f.MinItems != nil && *f.MinItems > len(f.Items.Values):
		d.errorf(keys["minItems"], "field", "a repeated value counts once", "%s: minItems %d is above the number of values (%d)", f.Name, *f.MinItems, len(f.Items.Values))
	}
}

// checkBounds reports an integer's bounds that are not whole, and lower
// bounds above upper ones.
func (d *decoder) checkBounds(f *Field, keys map[string]*yaml.Node) {
	if f.Type == TypeInteger {
		for _, b := range []struct {
			key string
			v   *float64
		}{{"minimum", f.Minimum}, {"maximum", f.Maximum}} {
			if b.v != nil && *b.v != float64(int64(*b.v)) {
				d.errorf(keys[b.key], "field", "", "%s: %s of an integer must be a whole number", f.Name, b.key)
			}
		}
	}
	if f.MinLength != nil && f.MaxLength != nil && *f.MinLength > *f.MaxLength {
		d.errorf(keys["minLength"], "field", "", "%s: minLength %d is above maxLength %d", f.Name, *f.MinLength, *f.MaxLength)
	}
	if f.Minimum != nil && f.Maximum != nil && *f.Minimum > *f.Maximum {
		d.errorf(keys["minimum"], "field", "", "%s: minimum %v is above maximum %v", f.Name, *f.Minimum, *f.Maximum)
	}
	if f.MinItems != nil && f.MaxItems != nil && *f.MinItems > *f.MaxItems {
		d.errorf(keys["minItems"], "field", "", "%s: minItems %d is above maxItems %d", f.Name, *f.MinItems, *f.MaxItems)
	}
}

// checkDynamicKeys reports what does not fit a dynamic enum (valuesFrom:
// its values are not known before run time) or an option outside a list.
func (d *decoder) checkDynamicKeys(f *Field, keys map[string]*yaml.Node, role fieldRole) {
	if f.Type == TypeOption && role != fieldItems {
		d.errorf(keys["type"], "field", "declare a list: {type: array, maxItems: N, items: {type: option, maxLength: N, titleMaxLength: N}}", "%s: option is the item type of a continuation list", f.Name)
	}
	if f.ValuesFrom == nil {
		return
	}
	for _, key := range []string{"values", "titles", "default", "example"} {
		if k := keys[key]; k != nil {
			d.errorf(k, "field", "the options are what a check put in "+f.ValuesFrom.Name+" (give that list an example instead)", "%s: %s does not go with valuesFrom", f.Name, key)
		}
	}
}

// decodeValue reads a default or example value of the field's type.
func (d *decoder) decodeValue(f *Field, n *yaml.Node, what string) any {
	v, want := d.fieldValue(f, n)
	if want != "" {
		d.errorf(n, "field", "", "%s: %s must be %s", f.Name, what, want)
		return nil
	}
	return v
}

// fieldValue reads a value of the field's type, or says what it must be.
func (d *decoder) fieldValue(f *Field, n *yaml.Node) (any, string) {
	tag := n.ShortTag()
	switch f.Type {
	case TypeString:
		if n.Kind != yaml.ScalarNode || tag != "!!str" {
			return nil, "a string"
		}
		return n.Value, ""
	case TypeEnum:
		if n.Kind != yaml.ScalarNode || !f.hasValue(n.Value) {
			return nil, "one of the values"
		}
		return n.Value, ""
	case TypeBoolean:
		if tag != "!!bool" {
			return nil, "true or false"
		}
		return boolVal(n), ""
	case TypeInteger:
		i, err := strconv.ParseInt(n.Value, 10, 64)
		if tag != "!!int" || err != nil {
			return nil, "an integer"
		}
		return i, ""
	case TypeNumber:
		v, err := strconv.ParseFloat(n.Value, 64)
		if (tag != "!!int" && tag != "!!float") || err != nil {
			return nil, "a number"
		}
		return v, ""
	case TypeArray:
		return d.arrayValue(f, n)
	}
	return nil, ""
}

// hasValue reports whether v is one of an enum's values.
func (f *Field) hasValue(v string) bool {
	return slices.ContainsFunc(f.Values, func(e EnumValue) bool { return e.Value == v })
}

// arrayValue reads a list of enum values, or the example of a list of
// options.
func (d *decoder) arrayValue(f *Field, n *yaml.Node) (any, string) {
	if it := f.OptionItems(); it != nil && n.Kind == yaml.SequenceNode {
		return d.decodeOptionList(f, it, n), ""
	}
	if n.Kind != yaml.SequenceNode || f.Items == nil || f.Items.Type != TypeEnum || f.Items.ValuesFrom != nil {
		return nil, "a list of enum values"
	}
	var vs []string
	for _, c := range n.Content {
		if !f.Items.hasValue(c.Value) {
			return nil, "a list of the item values"
		}
		vs = append(vs, c.Value)
	}
	return vs, ""
}

// decodeOptionList reads the example of a list that can be offered as
// options: strings (values), or {value, title} mappings for options. It
// returns []string for a list of strings and []Option for options. The
// schema leaves an example free, so its keys are checked here.
func (d *decoder) decodeOptionList(f, item *Field, n *yaml.Node) any {
	if item.Type == TypeString {
		var vs []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				d.errorf(c, "field", "", "%s: example must be a list of strings", f.Name)
				return nil
			}
			vs = append(vs, c.Value)
		}
		return vs
	}
	var os []Option
	for _, c := range n.Content {
		o, ok := d.exampleOption(f, c)
		if !ok {
			return nil
		}
		os = append(os, o)
	}
	return os
}

// exampleOption reads one option of a list's example.
func (d *decoder) exampleOption(f *Field, c *yaml.Node) (Option, bool) {
	var o Option
	switch c.Kind {
	case yaml.ScalarNode:
		o.Value = c.Value
	case yaml.MappingNode:
		for _, p := range pairs(c) {
			if p.key != "value" && p.key != "title" {
				d.errorf(p.k, "field", "an option has a value and a title", "%s: unknown key %q in an example option", f.Name, p.key)
			}
		}
		decodeInto(c, &o) // yaml.v3 names Option's fields value and title
	default:
		d.errorf(c, "field", "", "%s: example options are values or {value: ..., title: ...}", f.Name)
		return o, false
	}
	if o.Value == "" {
		d.errorf(c, "field", "", "%s: an example option needs a value", f.Name)
		return o, false
	}
	return o, true
}
