package spec

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// decoder builds the model from a schema-valid YAML tree. The schema has
// already checked keys and types; the decoder checks what a schema cannot
// say well (exactly one kind per state, constraints that fit the type,
// regular expressions, durations, templates) and records positions.
type decoder struct {
	file  string
	kind  vocab.Kind // of the workflow being decoded
	diags Diagnostics
	// uses are the ask entries of the workflow being decoded that name
	// one of its questions (questions.go).
	uses []questionUse
}

func (d *decoder) pos(n *yaml.Node) Pos { return Pos{File: d.file, Line: n.Line, Col: n.Column} }

func (d *decoder) errorf(n *yaml.Node, rule, hint, format string, args ...any) {
	d.diags = append(d.diags, Diagnostic{Pos: d.pos(n), Severity: Error, Rule: rule, Message: fmt.Sprintf(format, args...), Hint: hint})
}

// pair is one key/value of a mapping.
type pair struct {
	key  string
	k, v *yaml.Node
}

func pairs(n *yaml.Node) []pair {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	ps := make([]pair, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		ps = append(ps, pair{key: n.Content[i].Value, k: n.Content[i], v: n.Content[i+1]})
	}
	return ps
}

func (d *decoder) intVal(n *yaml.Node) int {
	i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	if err != nil || i > 1<<31 {
		d.errorf(n, "schema", "", "%q is not a usable integer", n.Value)
		return 0
	}
	return int(i)
}

func (d *decoder) intPtr(n *yaml.Node) *int { i := d.intVal(n); return &i }

func (d *decoder) floatPtr(n *yaml.Node) *float64 {
	f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil {
		d.errorf(n, "schema", "", "%q is not a number", n.Value)
		return nil
	}
	return &f
}

func boolVal(n *yaml.Node) bool { return strings.EqualFold(n.Value, "true") }

func (d *decoder) duration(n *yaml.Node) time.Duration {
	v, err := time.ParseDuration(n.Value)
	if err != nil || v <= 0 {
		d.errorf(n, "schema", "write a positive duration such as 90s, 10m or 1h30m", "%q is not a positive duration", n.Value)
		return 0
	}
	return v
}

func (d *decoder) template(n *yaml.Node) *Template {
	at := func(off int) Pos { return d.offsetPos(n, off) }
	t, err := parseTemplate(n.Value, d.pos(n), at)
	if err != nil {
		p := d.pos(n)
		var te *templateError
		if errors.As(err, &te) {
			p = at(te.Offset)
		}
		d.diags = append(d.diags, Diagnostic{Pos: p, Severity: Error, Rule: "template", Message: "bad template: " + err.Error(),
			Hint: "placeholders are {name} or {askKey.field}; write {{ and }} for literal braces"})
		return nil
	}
	return t
}

// offsetPos is the position of byte offset off of a scalar's value. It is
// exact for a scalar on one line whose text up to off is written as is
// (plain, or quoted without escapes); otherwise it is the scalar's start.
func (d *decoder) offsetPos(n *yaml.Node, off int) Pos {
	p := d.pos(n)
	if p.Line == 0 || off < 0 || off > len(n.Value) {
		return p
	}
	before := n.Value[:off]
	if strings.ContainsAny(before, "\n\r") {
		return p
	}
	switch {
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return p
	case n.Style&yaml.DoubleQuotedStyle != 0:
		if strings.ContainsAny(before, `\"`) {
			return p
		}
		p.Col++
	case n.Style&yaml.SingleQuotedStyle != 0:
		if strings.Contains(before, "'") {
			return p
		}
		p.Col++
	}
	p.Col += utf8.RuneCountInString(before)
	return p
}

var mcpNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

func (d *decoder) decodeFile(root *yaml.Node) *File {
	f := &File{Path: d.file, Output: ".", Pos: d.pos(root)}
	for _, p := range pairs(root) {
		switch p.key {
		case "version":
			f.Version = d.intVal(p.v)
		case "package":
			f.Package, f.PackagePos = p.v.Value, d.pos(p.v)
		case "output":
			f.OutputPos = d.pos(p.v)
			out := path.Clean(strings.ReplaceAll(p.v.Value, `\`, "/"))
			if path.IsAbs(out) {
				d.errorf(p.v, "output", "give a path relative to the spec file", "output %q must be relative to the spec file's directory", p.v.Value)
			}
			f.Output = out
		case "validators":
			for _, vp := range pairs(p.v) {
				v := &Validator{Name: vp.key, Pos: d.pos(vp.k)}
				d.checkIdent(vp.k, "validator")
				for _, q := range pairs(vp.v) {
					switch q.key {
					case "type":
						v.Type = fieldTypeByName[q.v.Value]
					case "description":
						v.Description = q.v.Value
					case "reads":
						v.ReadsPos = d.pos(q.k)
						for _, item := range q.v.Content {
							if item.Kind == yaml.ScalarNode && item.Value != "" {
								v.Reads = append(v.Reads, ValueRef{Path: strings.Split(item.Value, "."), Pos: d.pos(item)})
							}
						}
					}
				}
				f.Validators = append(f.Validators, v)
			}
		case "tools", "prompts", "resources":
			d.kind = map[string]vocab.Kind{"tools": vocab.KindTool, "prompts": vocab.KindPrompt, "resources": vocab.KindResource}[p.key]
			for _, tp := range pairs(p.v) {
				t := d.decodeWorkflow(tp)
				switch p.key {
				case "tools":
					f.Tools = append(f.Tools, t)
				case "prompts":
					f.Prompts = append(f.Prompts, t)
				default:
					f.Resources = append(f.Resources, t)
				}
			}
		case "lint":
			f.Lint = d.decodeLint(p.v)
		}
	}
	if f.Version != 1 {
		d.errorf(root, "schema", "", "version must be 1")
	}
	byName := func(a, b *Tool) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(f.Tools, byName)
	slices.SortFunc(f.Prompts, byName)
	slices.SortFunc(f.Resources, byName)
	slices.SortFunc(f.Validators, func(a, b *Validator) int { return strings.Compare(a.Name, b.Name) })
	return f
}

func (d *decoder) checkIdent(n *yaml.Node, what string) {
	if !isIdent(n.Value) {
		d.errorf(n, "schema", "use letters, digits and underscores, starting with a letter", "%s name %q is not a valid name", what, n.Value)
	}
}

// decodeWorkflow decodes one tool, prompt or resource: its own keys, then
// its states, then the shared questions its asks use.
func (d *decoder) decodeWorkflow(tp pair) *Tool {
	t := &Tool{Kind: d.kind, Name: tp.key, Pos: d.pos(tp.k)}
	if !mcpNameRE.MatchString(tp.key) {
		d.errorf(tp.k, "schema", "MCP names are 1-128 characters of A-Z a-z 0-9 _ . -", "%s name %q is not a valid MCP name", d.kind, tp.key)
	}
	d.uses = nil
	body := d.decodeWorkflowKeys(t, tp.v)
	d.checkResource(t, tp.k, body.keys)
	if t.Continuation == nil {
		t.Continuation = &Continuation{TTL: DefaultTTL, Storage: vocab.Sealed, MaxBytes: DefaultMaxBytes, Pos: t.Pos, TTLPos: t.Pos}
	}
	t.States = d.decodeStates(t.Initial, body.states)
	if body.questions != nil || len(d.uses) > 0 {
		d.resolveQuestions(t, d.uses, keyNodes(body.questions))
	}
	d.uses = nil
	// A sensitive answer is part of the continuation too: it stays
	// server-side unless the spec chose otherwise (lint refuses that).
	if !t.Continuation.StorageSet && sensitiveAnswer(t.States) {
		t.Continuation.Storage = vocab.Reference
	}
	return t
}

// workflowBody is what decodeWorkflowKeys leaves for later: the nodes of
// the workflow's keys, and the states and questions, which are decoded
// once every other key is known.
type workflowBody struct {
	keys              map[string]*yaml.Node
	states, questions *yaml.Node
}

// decodeWorkflowKeys decodes the keys of a workflow into t, one case per
// key.
func (d *decoder) decodeWorkflowKeys(t *Tool, n *yaml.Node) workflowBody {
	body := workflowBody{keys: map[string]*yaml.Node{}}
	resource := func() *ResourceDecl {
		if t.Resource == nil {
			t.Resource = &ResourceDecl{Pos: t.Pos}
		}
		return t.Resource
	}
	for _, p := range pairs(n) {
		body.keys[p.key] = p.k
		switch p.key {
		case "uri":
			resource().URI = p.v.Value
		case "uriTemplate":
			resource().URITemplate = p.v.Value
		case "mimeType":
			resource().MIMEType = p.v.Value
		case "title":
			t.Title = p.v.Value
		case "description":
			t.Description = p.v.Value
		case "destructive":
			t.Destructive = boolVal(p.v)
			if d.kind != vocab.KindTool {
				d.errorf(p.k, "schema", "", "destructive applies to tools, not %ss", d.kind)
			}
		case "requires":
			t.RequiresPos = d.pos(p.v)
			for _, c := range p.v.Content {
				t.Requires = append(t.Requires, vocab.Capability(c.Value))
			}
			slices.Sort(t.Requires)
		case "nonInteractive":
			t.NonInteractive = boolVal(p.v)
		case "task":
			if d.kind == vocab.KindPrompt {
				d.errorf(p.k, "schema", "", "task applies to tools, not prompts (prompts/get has no tasks)")
			}
			t.Task = d.decodeTask(p.v)
		case "arguments":
			t.Arguments = d.decodeFields(p.v, fieldArgument)
		case "continuation":
			t.Continuation = d.decodeContinuation(p.v)
		case "initial":
			t.Initial, t.InitialPos = p.v.Value, d.pos(p.v)
		case "states":
			body.states = p.v
		case "questions":
			body.questions = p.v
			t.Questions = d.decodeQuestions(p.v)
		case "lint":
			t.Lint = d.decodeLint(p.v)
		}
	}
	return body
}

// decodeStates decodes the states of a workflow, the initial one first.
func (d *decoder) decodeStates(initial string, n *yaml.Node) []*State {
	var states []*State
	for _, sp := range pairs(n) {
		d.checkIdent(sp.k, "state")
		states = append(states, d.decodeState(sp))
	}
	return orderStates(initial, states)
}

// keyNodes maps each key of a mapping to its node (nil gives an empty map).
func keyNodes(n *yaml.Node) map[string]*yaml.Node {
	keys := map[string]*yaml.Node{}
	for _, p := range pairs(n) {
		keys[p.key] = p.k
	}
	return keys
}

// sensitiveAnswer reports whether a form field of any state is sensitive.
func sensitiveAnswer(states []*State) bool {
	for _, s := range states {
		for _, q := range s.Requests {
			if slices.ContainsFunc(q.Fields, func(f *Field) bool { return f.Sensitive }) {
				return true
			}
		}
	}
	return false
}

func (d *decoder) decodeTask(n *yaml.Node) *TaskDecl {
	td := &TaskDecl{Pos: d.pos(n)}
	for _, p := range pairs(n) {
		switch p.key {
		case "mode":
			td.Required = p.v.Value == "required"
		case "start":
			td.Start, td.StartPos = p.v.Value, d.pos(p.v)
		case "timeout":
			td.Timeout = Duration{d.duration(p.v), d.pos(p.v)}
		case "pollInterval":
			td.PollInterval = Duration{d.duration(p.v), d.pos(p.v)}
		case "ttl":
			td.TTL = Duration{d.duration(p.v), d.pos(p.v)}
		}
	}
	return td
}

func (d *decoder) decodeContinuation(n *yaml.Node) *Continuation {
	c := &Continuation{TTL: DefaultTTL, MaxBytes: DefaultMaxBytes, Pos: d.pos(n), TTLPos: d.pos(n)}
	storage := "auto"
	for _, p := range pairs(n) {
		switch p.key {
		case "ttl":
			c.TTL, c.TTLSet, c.TTLPos = d.duration(p.v), true, d.pos(p.v)
		case "storage":
			storage = p.v.Value
		case "maxBytes":
			c.MaxBytes = d.intVal(p.v)
		case "fields":
			c.Fields = d.decodeFields(p.v, fieldContinuation)
		}
	}
	switch storage {
	case "sealed":
		c.Storage, c.StorageSet = vocab.Sealed, true
	case "reference":
		c.Storage, c.StorageSet = vocab.Reference, true
	default:
		c.Storage = vocab.Sealed
		if slices.ContainsFunc(c.Fields, func(f *Field) bool { return f.Sensitive }) {
			c.Storage = vocab.Reference
		}
	}
	return c
}

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
	later := d.decodeFieldKeys(f, n, role)
	d.titleValues(f, later.titles)
	d.checkFieldKeys(f, later.keys, n, role)
	if f.ValuesFrom != nil {
		return f // its values are not known: a default or example is refused above
	}
	if later.def != nil {
		f.Default = d.decodeValue(f, later.def, "default")
	}
	if later.example != nil {
		f.Example = d.decodeValue(f, later.example, "example")
	}
	return f
}

// fieldLater is what decodeFieldKeys leaves for later: the nodes of the
// field's keys, and the keys whose meaning depends on the others.
type fieldLater struct {
	keys                 map[string]*yaml.Node
	def, example, titles *yaml.Node
}

// decodeFieldKeys decodes the keys of a field into f, one case per key.
func (d *decoder) decodeFieldKeys(f *Field, n *yaml.Node, role fieldRole) fieldLater {
	later := fieldLater{keys: map[string]*yaml.Node{}}
	for _, p := range pairs(n) {
		later.keys[p.key] = p.k
		switch p.key {
		case "type":
			f.Type = fieldTypeByName[p.v.Value]
		case "title":
			f.Title = p.v.Value
		case "description":
			f.Description = p.v.Value
		case "required":
			f.Required = boolVal(p.v)
		case "default":
			later.def = p.v
		case "example":
			later.example = p.v
		case "minLength":
			f.MinLength = d.intPtr(p.v)
		case "maxLength":
			f.MaxLength = d.intPtr(p.v)
		case "pattern":
			f.Pattern, f.Regexp = p.v.Value, d.pattern(p.v)
		case "format":
			f.Format = p.v.Value
		case "minimum":
			f.Minimum = d.floatPtr(p.v)
		case "maximum":
			f.Maximum = d.floatPtr(p.v)
		case "values":
			d.addEnumValues(f, p.v)
		case "titles":
			later.titles = p.v
		case "valuesFrom":
			f.ValuesFrom = &NameRef{Name: p.v.Value, Pos: d.pos(p.v)}
		case "titleMaxLength":
			f.TitleMaxLength = d.intPtr(p.v)
		case "items":
			f.Items = d.decodeField(f.Name+"[]", p.k, p.v, fieldItems)
		case "minItems":
			f.MinItems = d.intPtr(p.v)
		case "maxItems":
			f.MaxItems = d.intPtr(p.v)
		case "uniqueItems":
			f.UniqueItems = boolVal(p.v)
		case "validate":
			for _, v := range p.v.Content {
				f.Validate = append(f.Validate, NameRef{Name: v.Value, Pos: d.pos(v)})
			}
		case "complete":
			f.Complete = d.decodeCompletion(p.v)
			if role != fieldArgument || d.kind == vocab.KindTool {
				d.errorf(p.k, "field", "complete applies to prompt arguments and resource template variables", "field %q: complete does not apply here", f.Name)
			}
		case "sensitive":
			f.Sensitive = boolVal(p.v)
		case "lint":
			f.Lint = d.decodeLint(p.v)
		}
	}
	return later
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

// checkFieldKeys reports constraints that do not fit the field's type or
// role, and bounds that contradict each other.
func (d *decoder) checkFieldKeys(f *Field, keys map[string]*yaml.Node, n *yaml.Node, role fieldRole) {
	only := func(key string, ok bool, why string) {
		if k := keys[key]; k != nil && !ok {
			d.errorf(k, "field", "", "%s: %s %s", f.Name, key, why)
		}
	}
	// An option's value is a string, with a string's constraints.
	str := f.Type == TypeString || f.Type == TypeOption
	num := f.Type == TypeNumber || f.Type == TypeInteger
	only("minLength", str, "applies to strings and option values only")
	only("maxLength", str, "applies to strings and option values only")
	only("pattern", str, "applies to strings and option values only")
	only("format", f.Type == TypeString, "applies to strings only")
	only("titleMaxLength", f.Type == TypeOption, "applies to options only (it bounds an option's title)")
	only("valuesFrom", f.Type == TypeEnum, "applies to enums only")
	only("valuesFrom", role == fieldForm || role == fieldItems, "applies to form fields only (the options are offered in a form)")
	only("minimum", num, "applies to numbers and integers only")
	only("maximum", num, "applies to numbers and integers only")
	only("values", f.Type == TypeEnum, "applies to enums only")
	only("titles", f.Type == TypeEnum, "applies to enums only")
	only("items", f.Type == TypeArray, "applies to arrays only")
	only("minItems", f.Type == TypeArray, "applies to arrays only")
	only("maxItems", f.Type == TypeArray, "applies to arrays only")
	only("uniqueItems", f.Type == TypeArray, "applies to arrays only")
	only("uniqueItems", role == fieldArgument || role == fieldForm, "applies to arguments and form fields only (continuation lists of enum values are always made distinct)")
	only("sensitive", role == fieldContinuation || role == fieldForm, "applies to continuation and form fields only (an output goes to the client: keep secrets out of it)")
	only("required", role == fieldArgument || role == fieldForm || role == fieldOutput, "applies to arguments, form and output fields only")
	only("default", role == fieldArgument || role == fieldForm, "applies to arguments and form fields only")
	only("example", role != fieldItems, "applies to the array, not its items")
	only("validate", role != fieldContinuation && role != fieldOutput, "does not apply to continuation or output fields (the server sets them)")
	if role == fieldItems {
		only("required", false, "does not apply to array items")
		only("default", false, "does not apply to array items")
	}
	d.checkDynamicKeys(f, keys, role)
	if f.Type == TypeArray {
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
	bad := func(want string) any {
		d.errorf(n, "field", "", "%s: %s must be %s", f.Name, what, want)
		return nil
	}
	switch f.Type {
	case TypeString:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
			return bad("a string")
		}
		return n.Value
	case TypeEnum:
		if n.Kind != yaml.ScalarNode || !slices.ContainsFunc(f.Values, func(e EnumValue) bool { return e.Value == n.Value }) {
			return bad("one of the values")
		}
		return n.Value
	case TypeBoolean:
		if n.ShortTag() != "!!bool" {
			return bad("true or false")
		}
		return boolVal(n)
	case TypeInteger:
		i, err := strconv.ParseInt(n.Value, 10, 64)
		if n.ShortTag() != "!!int" || err != nil {
			return bad("an integer")
		}
		return i
	case TypeNumber:
		v, err := strconv.ParseFloat(n.Value, 64)
		if (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") || err != nil {
			return bad("a number")
		}
		return v
	case TypeArray:
		if it := f.OptionItems(); it != nil && n.Kind == yaml.SequenceNode {
			return d.decodeOptionList(f, it, n)
		}
		if n.Kind != yaml.SequenceNode || f.Items == nil || f.Items.Type != TypeEnum || f.Items.ValuesFrom != nil {
			return bad("a list of enum values")
		}
		var vs []string
		for _, c := range n.Content {
			if !slices.ContainsFunc(f.Items.Values, func(e EnumValue) bool { return e.Value == c.Value }) {
				return bad("a list of the item values")
			}
			vs = append(vs, c.Value)
		}
		return vs
	}
	return nil
}

// decodeOptionList reads the example of a list that can be offered as
// options: strings (values), or {value, title} mappings for options. It
// returns []string for a list of strings and []Option for options.
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
		var o Option
		switch c.Kind {
		case yaml.ScalarNode:
			o.Value = c.Value
		case yaml.MappingNode:
			for _, p := range pairs(c) {
				switch p.key {
				case "value":
					o.Value = p.v.Value
				case "title":
					o.Title = p.v.Value
				default:
					d.errorf(p.k, "field", "an option has a value and a title", "%s: unknown key %q in an example option", f.Name, p.key)
				}
			}
		default:
			d.errorf(c, "field", "", "%s: example options are values or {value: ..., title: ...}", f.Name)
			return nil
		}
		if o.Value == "" {
			d.errorf(c, "field", "", "%s: an example option needs a value", f.Name)
			return nil
		}
		os = append(os, o)
	}
	return os
}

var stateKindKeys = []string{"check", "ask", "confirm", "effect", "branch", "terminal"}

// decodeState decodes one state: its keys, then the checks that it does
// exactly one thing and has only the keys of that thing, then what its
// kind leaves out or implies.
func (d *decoder) decodeState(sp pair) *State {
	s := &State{Name: sp.key, Pos: d.pos(sp.k)}
	keys, kinds, askEntries := d.decodeStateKeys(s, sp.v)
	switch len(kinds) {
	case 0:
		d.errorf(sp.k, "state", "add one of check, ask, confirm, effect, branch, terminal", "state %q does not say what happens in it", s.Name)
		return s
	case 1:
	default:
		d.errorf(keys[kinds[1]], "state", "split it into one state per step", "state %q has both %s and %s; a state does exactly one thing", s.Name, kinds[0], kinds[1])
		return s
	}
	d.checkStateKeys(s, keys, sp.k, askEntries)
	settleStateKind(s)
	return s
}

// decodeStateKeys decodes the keys of a state into s, one case per key. It
// returns the nodes of the keys, the keys that say what kind of state it
// is, and how many entries its ask: wrote.
func (d *decoder) decodeStateKeys(s *State, n *yaml.Node) (keys map[string]*yaml.Node, kinds []string, askEntries int) {
	keys = map[string]*yaml.Node{}
	for _, p := range pairs(n) {
		keys[p.key] = p.k
		if slices.Contains(stateKindKeys, p.key) {
			kinds = append(kinds, p.key)
		}
		ref := func() *StateRef { return &StateRef{Name: p.v.Value, Pos: d.pos(p.v)} }
		switch p.key {
		case "description":
			s.Description = p.v.Value
		case "check":
			s.Kind, s.Check = vocab.StateCheck, &NameRef{Name: p.v.Value, Pos: d.pos(p.v)}
		case "outcomes":
			s.Outcomes = d.decodeOutcomes(p.v)
		case "ask":
			s.Kind = vocab.StateAsk
			// Requests that fail to decode are reported by decodeRequest;
			// count what was written so the state is not also said to ask
			// for nothing.
			askEntries = len(p.v.Content) / 2
			s.Requests = d.decodeRequests(s, p.v)
		case "confirm":
			s.Kind, s.Confirm = vocab.StateConfirm, d.decodeGate(p.v)
		case "askAgain":
			s.AskAgain = d.decodeAskAgain(p)
		case "maxAttempts":
			s.MaxAttempts = d.intVal(p.v)
		case "onExhausted":
			s.OnExhausted = ref()
		case "branch", "cases", "when", "default":
			d.decodeBranchKey(s, p)
		case "effect":
			s.Kind, s.Effect = vocab.StateEffect, &NameRef{Name: p.v.Value, Pos: d.pos(p.v)}
		case "irreversible":
			s.Irreversible = boolVal(p.v)
		case "progress":
			s.Progress = boolVal(p.v)
		case "slow":
			s.Slow, s.SlowPos = boolVal(p.v), d.pos(p.k)
		case "idempotency":
			s.Idempotency = d.decodeIdempotency(p.v)
		case "terminal":
			s.Kind = vocab.StateTerminal
			if o := vocab.Outcome(p.v.Value); o.Declarable() {
				s.Outcome = o
			}
		case "message":
			s.Message = d.template(p.v)
		case "messages":
			s.Messages = d.decodePromptMessages(p.v)
		case "output":
			s.OutputPos = d.pos(p.k)
			s.Output = d.decodeFields(p.v, fieldOutput)
		case "content":
			s.Content = d.decodeContentList(p.v)
		case "contents":
			s.Content = d.decodeContents(p.v)
		case "notFound":
			s.NotFound = boolVal(p.v)
		case "sets":
			s.SetsPos = d.pos(p.k)
			s.Sets = d.decodeSets(p.v)
		case "next":
			s.Next = ref()
		case "onDecline":
			s.OnDecline = ref()
		case "onCancel":
			s.OnCancel = ref()
		case "lint":
			s.Lint = d.decodeLint(p.v)
		}
	}
	return keys, kinds, askEntries
}

// settleStateKind drops what the kind of s leaves out and fills in what it
// implies.
func settleStateKind(s *State) {
	// Keys reported as out of place leave nothing behind: a check is not
	// also a branch, and only checks ask again.
	if s.Kind != vocab.StateBranch {
		s.Branch = nil
	}
	if s.Kind != vocab.StateCheck {
		s.AskAgain = nil
	}
	if s.Kind != vocab.StateAsk {
		s.MaxAttempts, s.OnExhausted = 0, nil
	}
	if s.Kind == vocab.StateEffect && s.Idempotency == nil {
		s.Idempotency = &Idempotency{Retain: DefaultRetain, Pos: s.Pos}
	}
	if s.Idempotency != nil && s.Idempotency.Key == nil {
		s.Idempotency.Key = &Template{Raw: "{workflowId}", Parts: []TemplatePart{{Ref: &TemplateRef{Path: []string{"workflowId"}, Kind: RefWorkflowID, Pos: s.Idempotency.Pos}}}, Pos: s.Idempotency.Pos}
	}
}

// decodeOutcomes decodes the outcomes of a check, sorted by name.
func (d *decoder) decodeOutcomes(n *yaml.Node) []*Branch {
	var out []*Branch
	for _, op := range pairs(n) {
		d.checkIdent(op.k, "outcome")
		out = append(out, &Branch{Name: op.key, Target: StateRef{Name: op.v.Value, Pos: d.pos(op.v)}, Pos: d.pos(op.k)})
	}
	slices.SortFunc(out, func(a, b *Branch) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// decodeRequests decodes the input requests of an ask, sorted by key.
func (d *decoder) decodeRequests(s *State, n *yaml.Node) []*InputRequest {
	var out []*InputRequest
	for _, rp := range pairs(n) {
		d.checkIdent(rp.k, "input request")
		if isQuestionUse(rp.v) {
			d.uses = append(d.uses, questionUse{state: s, key: rp.key, node: rp.v})
			continue
		}
		if r := d.decodeRequest(rp); r != nil {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *InputRequest) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// decodeGate decodes a confirmation gate; key and field default to
// "confirm".
func (d *decoder) decodeGate(n *yaml.Node) *Gate {
	g := &Gate{Key: "confirm", Field: "confirm", Pos: d.pos(n)}
	for _, gp := range pairs(n) {
		switch gp.key {
		case "message":
			g.Message = d.template(gp.v)
		case "key":
			g.Key = gp.v.Value
		case "field":
			g.Field = gp.v.Value
		case "typed":
			g.Typed = d.template(gp.v)
		case "maxAttempts":
			g.MaxAttempts, g.MaxAttemptsPos = d.intVal(gp.v), d.pos(gp.k)
		}
	}
	switch {
	case g.Typed != nil && g.MaxAttempts == 0:
		g.MaxAttempts = DefaultTypedAttempts
	case g.Typed == nil && g.MaxAttemptsPos.Line > 0:
		g.MaxAttempts = 0
		d.diags = append(d.diags, Diagnostic{Pos: g.MaxAttemptsPos, Severity: Error, Rule: "state", Message: "maxAttempts bounds a typed confirmation, but this gate has no typed text",
			Hint: "add typed: \"{releaseId}\" (the text the user must type), or remove maxAttempts"})
	}
	return g
}

// decodeIdempotency decodes an effect's idempotency; its key, when
// absent, is filled in by decodeState.
func (d *decoder) decodeIdempotency(n *yaml.Node) *Idempotency {
	idem := &Idempotency{Retain: DefaultRetain, Pos: d.pos(n)}
	for _, ip := range pairs(n) {
		switch ip.key {
		case "key":
			idem.Key = d.template(ip.v)
		case "retain":
			idem.Retain = d.duration(ip.v)
		}
	}
	return idem
}

// decodePromptMessages decodes the messages of a prompt's terminal state.
func (d *decoder) decodePromptMessages(n *yaml.Node) []*PromptMessage {
	var out []*PromptMessage
	for _, m := range n.Content {
		pm := &PromptMessage{Pos: d.pos(m)}
		for _, mp := range pairs(m) {
			switch mp.key {
			case "role":
				pm.Role = mp.v.Value
			case "text":
				pm.Text = d.template(mp.v)
			case "image", "audio", "resourceLink", "resource":
				pm.Content = d.decodeContentBody(contentKindKeys[mp.key], mp.k, mp.v)
			}
		}
		out = append(out, pm)
	}
	return out
}

// checkStateKeys reports keys that do not belong to the state's kind and
// transitions the kind needs but lacks.
func (d *decoder) checkStateKeys(s *State, keys map[string]*yaml.Node, at *yaml.Node, askEntries int) {
	allowed := map[vocab.StateKind][]string{
		vocab.StateCheck:    {"check", "outcomes", "next", "sets", "askAgain", "progress"},
		vocab.StateAsk:      {"ask", "next", "onDecline", "onCancel", "maxAttempts", "onExhausted"},
		vocab.StateConfirm:  {"confirm", "next", "onDecline", "onCancel"},
		vocab.StateEffect:   {"effect", "irreversible", "slow", "idempotency", "next", "sets", "progress"},
		vocab.StateBranch:   {"branch", "cases", "when", "default"},
		vocab.StateTerminal: {"terminal", "message", "messages", "output", "content", "contents", "notFound"},
	}[s.Kind]
	for _, key := range []string{"outcomes", "next", "onDecline", "onCancel", "irreversible", "slow", "idempotency", "progress", "message", "messages", "output", "content", "contents", "notFound", "sets", "askAgain", "cases", "when", "default", "maxAttempts", "onExhausted"} {
		if k := keys[key]; k != nil && !slices.Contains(allowed, key) {
			d.errorf(k, "state", "", "state %q: %s does not apply to a %s state", s.Name, key, s.Kind)
		}
	}
	switch s.Kind {
	case vocab.StateCheck:
		switch {
		case s.Next != nil && len(s.Outcomes) > 0:
			d.errorf(keys["outcomes"], "state", "keep next for a plain check, or outcomes for a branching one", "state %q has both next and outcomes", s.Name)
		case s.Next == nil && len(s.Outcomes) == 0:
			d.errorf(at, "state", "add next: <state>, or outcomes: {name: <state>}", "check state %q does not say where to go", s.Name)
		case keys["outcomes"] != nil && len(s.Outcomes) < 2:
			d.errorf(keys["outcomes"], "state", "use next for a single way on", "state %q: outcomes needs at least two branches", s.Name)
		}
	case vocab.StateBranch:
		d.checkBranchKeys(s, keys)
	case vocab.StateAsk, vocab.StateConfirm, vocab.StateEffect:
		if s.Next == nil {
			d.errorf(at, "state", "add next: <state>", "%s state %q does not say where to go", s.Kind, s.Name)
		}
		if s.Kind == vocab.StateAsk && (keys["maxAttempts"] == nil) != (keys["onExhausted"] == nil) {
			k := keys["maxAttempts"]
			if k == nil {
				k = keys["onExhausted"]
			}
			d.errorf(k, "state", "give both: maxAttempts: N and onExhausted: <state>", "state %q: maxAttempts and onExhausted bound the answers validators with context refuse, and go together", s.Name)
		}
	case vocab.StateTerminal:
		if d.kind == vocab.KindTool && keys["messages"] != nil {
			d.errorf(keys["messages"], "state", "use message: for a tool's result text", "state %q: messages is for prompts", s.Name)
		}
		d.checkTerminalContent(s, keys)
		d.checkNotFound(s, keys)
		if d.kind == vocab.KindPrompt && keys["message"] != nil {
			d.errorf(keys["message"], "state", "use messages: [{role: user, text: ...}] for a prompt", "state %q: message is for tools", s.Name)
		}
		if d.kind == vocab.KindPrompt && s.Outcome == vocab.OutcomeSuccess && len(s.Messages) == 0 {
			d.errorf(at, "state", "add messages: [{role: user, text: ...}]", "prompt terminal state %q has no messages", s.Name)
		}
		d.checkOutputKeys(s, keys)
	}
	if k := keys["sets"]; k != nil && len(s.Outcomes) == 0 && slices.ContainsFunc(s.Sets, func(sd *SetDecl) bool { return len(sd.Outcomes) > 0 }) {
		d.errorf(k, "state", "list the fields (sets: [a, b]): without outcomes, a method sets them whenever it returns", "state %q: sets by outcome needs a check with outcomes", s.Name)
	}
	if a := s.AskAgain; a != nil && s.Kind == vocab.StateCheck {
		for _, b := range s.Outcomes {
			if e := vocab.OutcomeEdge(b.Name); e.Label() == vocab.AskAgain.Label() || e.Label() == vocab.Exhausted.Label() {
				d.errorf(keys["outcomes"], "state", "rename the outcome", "state %q: outcome %q has the name of an askAgain transition", s.Name, b.Name)
			}
		}
	}
	if s.Kind == vocab.StateAsk && len(s.Requests) == 0 && keys["ask"] != nil && askEntries == 0 {
		d.errorf(keys["ask"], "state", "add at least one input request", "state %q asks for nothing", s.Name)
	}
}

// decodeSets reads a state's sets: a list of continuation fields (set on
// every way out), or a mapping of each field to the outcomes it is set on.
// Sorted by field name.
func (d *decoder) decodeSets(n *yaml.Node) []*SetDecl {
	var out []*SetDecl
	add := func(k *yaml.Node) *SetDecl {
		if slices.ContainsFunc(out, func(sd *SetDecl) bool { return sd.Field.Name == k.Value }) {
			d.errorf(k, "state", "", "sets names %q twice", k.Value)
		}
		sd := &SetDecl{Field: NameRef{Name: k.Value, Pos: d.pos(k)}}
		out = append(out, sd)
		return sd
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for _, c := range n.Content {
			add(c)
		}
	case yaml.MappingNode:
		for _, p := range pairs(n) {
			sd := add(p.k)
			for _, o := range p.v.Content {
				sd.Outcomes = append(sd.Outcomes, NameRef{Name: o.Value, Pos: d.pos(o)})
			}
			if len(sd.Outcomes) == 0 {
				d.errorf(p.v, "state", "name the outcomes on which the check sets it", "sets: %q lists no outcome", p.key)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b *SetDecl) int { return strings.Compare(a.Field.Name, b.Field.Name) })
	return out
}

// decodeBranchKey decodes one key of a value branch: the value it routes
// on, its cases (sorted by value), its ranges (sorted from the lowest) or
// its default.
func (d *decoder) decodeBranchKey(s *State, p pair) {
	b := d.branchOf(s, p.k)
	switch p.key {
	case "branch":
		s.Kind = vocab.StateBranch
		b.On = ValueRef{Path: strings.Split(p.v.Value, "."), Pos: d.pos(p.v)}
	case "cases":
		for _, cp := range pairs(p.v) {
			b.Cases = append(b.Cases, &Case{Value: cp.key, Target: StateRef{Name: cp.v.Value, Pos: d.pos(cp.v)}, Pos: d.pos(cp.k)})
		}
		slices.SortFunc(b.Cases, func(x, y *Case) int { return strings.Compare(x.Value, y.Value) })
	case "when":
		for _, item := range p.v.Content {
			if r := d.decodeRange(item); r != nil {
				b.Ranges = append(b.Ranges, r)
			}
		}
		slices.SortStableFunc(b.Ranges, compareRanges)
	case "default":
		b.Default = &StateRef{Name: p.v.Value, Pos: d.pos(p.v)}
	}
}

// branchOf returns the state's value branch, made on the first of its keys
// (branch, cases, when, default) the decoder meets.
func (d *decoder) branchOf(s *State, at *yaml.Node) *ValueBranch {
	if s.Branch == nil {
		s.Branch = &ValueBranch{Pos: d.pos(at)}
	}
	return s.Branch
}

// checkBranchKeys reports a value branch without arms, or with both kinds.
func (d *decoder) checkBranchKeys(s *State, keys map[string]*yaml.Node) {
	switch {
	case keys["cases"] != nil && keys["when"] != nil:
		d.errorf(keys["when"], "branch", "use cases for an enum or a boolean, when for a number", "branch %q has both cases and when", s.Name)
	case keys["cases"] == nil && keys["when"] == nil:
		d.errorf(keys["branch"], "branch", "add cases: {value: <state>} or when: [{above: 500, next: <state>}]", "branch %q has no arms", s.Name)
	}
}

// decodeRange reads one arm of when: at most one lower and one upper bound,
// and at least one of them.
func (d *decoder) decodeRange(n *yaml.Node) *Range {
	r := &Range{Pos: d.pos(n)}
	bounds := 0
	for _, p := range pairs(n) {
		bound := func(dst **Bound, inclusive bool, other string) {
			bounds++
			v := d.floatPtr(p.v)
			if v == nil {
				return
			}
			if *dst != nil {
				d.errorf(p.k, "branch", "give one lower bound (above or atLeast) and one upper bound (below or atMost)", "range has both %s and %s", p.key, other)
				return
			}
			*dst = &Bound{Value: *v, Inclusive: inclusive}
		}
		switch p.key {
		case "above":
			bound(&r.Lower, false, "atLeast")
		case "atLeast":
			bound(&r.Lower, true, "above")
		case "below":
			bound(&r.Upper, false, "atMost")
		case "atMost":
			bound(&r.Upper, true, "below")
		case "next":
			r.Target = StateRef{Name: p.v.Value, Pos: d.pos(p.v)}
		}
	}
	if bounds == 0 {
		d.errorf(n, "branch", "add above, atLeast, below or atMost", "a range of when has no bound")
		return nil
	}
	return r
}

// compareRanges orders ranges from the lowest: by lower bound (none first,
// an inclusive bound before an exclusive one of the same value), then by
// upper bound (none last).
func compareRanges(a, b *Range) int {
	if c := compareBound(a.Lower, b.Lower, true); c != 0 {
		return c
	}
	return compareBound(a.Upper, b.Upper, false)
}

func compareBound(a, b *Bound, lower bool) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil && lower, b == nil && !lower:
		return -1
	case a == nil, b == nil:
		return 1
	case a.Value != b.Value:
		if a.Value < b.Value {
			return -1
		}
		return 1
	case a.Inclusive == b.Inclusive:
		return 0
	case a.Inclusive == lower:
		return -1
	}
	return 1
}

func (d *decoder) decodeAskAgain(p pair) *AskAgain {
	a := &AskAgain{Pos: d.pos(p.k)}
	for _, ap := range pairs(p.v) {
		switch ap.key {
		case "state":
			a.State = StateRef{Name: ap.v.Value, Pos: d.pos(ap.v)}
		case "maxAttempts":
			a.MaxAttempts = d.intVal(ap.v)
		case "onExhausted":
			a.OnExhausted = StateRef{Name: ap.v.Value, Pos: d.pos(ap.v)}
		}
	}
	return a
}

func (d *decoder) decodeRequest(rp pair) *InputRequest {
	r := &InputRequest{Key: rp.key, Pos: d.pos(rp.k)}
	var kinds []*yaml.Node
	for _, p := range pairs(rp.v) {
		switch p.key {
		case "elicit":
			kinds = append(kinds, p.k)
			r.Kind = vocab.Elicit
			for _, ep := range pairs(p.v) {
				switch ep.key {
				case "message":
					r.Message = d.template(ep.v)
				case "fields":
					r.Fields = d.decodeFields(ep.v, fieldForm)
				}
			}
		case "elicitUrl":
			kinds = append(kinds, p.k)
			r.Kind = vocab.ElicitURL
			for _, ep := range pairs(p.v) {
				switch ep.key {
				case "message":
					r.Message = d.template(ep.v)
				case "url":
					r.URL = d.urlTemplate(ep.v)
				}
			}
		case "sample":
			kinds = append(kinds, p.k)
			r.Kind = vocab.Sample
			for _, sp := range pairs(p.v) {
				switch sp.key {
				case "prompt":
					r.Prompt = d.template(sp.v)
				case "systemPrompt":
					r.SystemPrompt = sp.v.Value
				case "maxTokens":
					r.MaxTokens = d.intVal(sp.v)
				case "maxLength":
					r.MaxLength = d.intPtr(sp.v)
				}
			}
			if r.MaxTokens == 0 {
				r.MaxTokens = 256
			}
		case "roots":
			kinds = append(kinds, p.k)
			r.Kind = vocab.Roots
			r.MaxItems = DefaultMaxRoots
			for _, sp := range pairs(p.v) {
				switch sp.key {
				case "minItems":
					r.MinItems = d.intPtr(sp.v)
				case "maxItems":
					r.MaxItems = d.intVal(sp.v)
				}
			}
		case "optional":
			r.Optional = boolVal(p.v)
		case "lint":
			r.Lint = d.decodeLint(p.v)
		}
	}
	switch len(kinds) {
	case 0:
		d.errorf(rp.k, "ask", "add one of elicit, elicitUrl, sample, roots", "input request %q does not say what it asks for", r.Key)
		return nil
	case 1:
		if r.Kind == vocab.Elicit && len(r.Fields) == 0 {
			d.errorf(rp.k, "ask", "add fields: {name: {type: ...}}", "elicitation %q has no fields", r.Key)
		}
		return r
	}
	d.errorf(kinds[1], "ask", "use one request key per kind", "input request %q asks for more than one thing", r.Key)
	return nil
}

func (d *decoder) decodeLint(n *yaml.Node) *LintConfig {
	lc := &LintConfig{Pos: d.pos(n)}
	for _, p := range pairs(n) {
		if p.key != "ignore" {
			continue
		}
		for _, ip := range pairs(p.v) {
			if strings.TrimSpace(ip.v.Value) == "" {
				d.errorf(ip.v, "lint-ignore", "say why the rule does not apply here", "ignoring rule %q needs a reason", ip.key)
			}
			lc.Ignore = append(lc.Ignore, Suppression{Rule: ip.key, Reason: ip.v.Value, Pos: d.pos(ip.k)})
		}
	}
	slices.SortFunc(lc.Ignore, func(a, b Suppression) int { return strings.Compare(a.Rule, b.Rule) })
	return lc
}

// orderStates sorts states by a breadth-first walk from the initial state;
// states it does not reach follow, by name. The order is what a reader
// expects (the flow, top to bottom) and does not depend on key order.
func orderStates(initial string, states []*State) []*State {
	byName := make(map[string]*State, len(states))
	for _, s := range states {
		if _, dup := byName[s.Name]; !dup {
			byName[s.Name] = s
		}
	}
	var out []*State
	seen := map[string]bool{}
	queue := []string{initial}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		s := byName[name]
		if s == nil || seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, s)
		for _, e := range s.Edges() {
			queue = append(queue, e.To)
		}
	}
	var rest []*State
	for _, s := range states {
		if !seen[s.Name] {
			seen[s.Name] = true
			rest = append(rest, s)
		}
	}
	slices.SortFunc(rest, func(a, b *State) int { return strings.Compare(a.Name, b.Name) })
	return append(out, rest...)
}
