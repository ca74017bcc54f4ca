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

// decoder builds the model from a schema-valid YAML tree. The schema
// checks keys, types and enum values (and reports them, with "did you
// mean" hints); yaml.v3 decodes each mapping into a typed document (the
// *Doc types); the decoder turns those into the model, checking what a
// schema cannot say well (exactly one kind per state, keys that fit the
// kind of state and the type and role of a field, regular expressions,
// durations, templates) and recording positions.
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

// diagAt reports an error at a position kept from a node.
func (d *decoder) diagAt(p Pos, rule, hint, format string, args ...any) {
	d.diags = append(d.diags, Diagnostic{Pos: p, Severity: Error, Rule: rule, Message: fmt.Sprintf(format, args...), Hint: hint})
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

// The *Doc types are what yaml.v3 decodes a mapping into: a field
// without a tag has the key of its name in lower case (yaml.v3's default).
//
// ynode is a value kept as its YAML node: for its position, or to read
// it further (an integer, a duration, a template, a nested document). An
// absent key, and a null value, leave it nil.
type ynode struct{ *yaml.Node }

// UnmarshalYAML keeps the node itself (not a copy), so that what is found
// in it is reported where it is written.
func (n *ynode) UnmarshalYAML(v *yaml.Node) error {
	n.Node = v
	return nil
}

// decodeInto decodes a mapping into its typed document. The schema has
// checked the mapping's keys and types: what yaml.v3 cannot decode (only
// in a file the schema refuses, whose schema report is the one that
// counts) is left zero.
func decodeInto(n *yaml.Node, doc any) {
	if n != nil && n.Kind == yaml.MappingNode {
		_ = n.Decode(doc)
	}
}

// keyNode is the key node of a mapping's key, or nil.
func keyNode(n *yaml.Node, key string) *yaml.Node {
	k, _ := keyValue(n, key)
	return k
}

// keyValue is the key and value nodes of a mapping's key, or nils.
func keyValue(n *yaml.Node, key string) (k, v *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

// writtenKeys are the key nodes of a mapping that are among names, in
// the order written.
func writtenKeys(n *yaml.Node, names []string) []*yaml.Node {
	var out []*yaml.Node
	for i := 0; n != nil && n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; slices.Contains(names, k.Value) {
			out = append(out, k)
		}
	}
	return out
}

func (d *decoder) optInt(n ynode) *int {
	if n.Node == nil {
		return nil
	}
	return d.intPtr(n.Node)
}

func (d *decoder) optFloat(n ynode) *float64 {
	if n.Node == nil {
		return nil
	}
	return d.floatPtr(n.Node)
}

func (d *decoder) optTemplate(n ynode) *Template {
	if n.Node == nil {
		return nil
	}
	return d.template(n.Node)
}

func (d *decoder) optDuration(n ynode) Duration {
	if n.Node == nil {
		return Duration{}
	}
	return Duration{d.duration(n.Node), d.pos(n.Node)}
}

func (d *decoder) nameRef(n ynode) *NameRef {
	if n.Node == nil {
		return nil
	}
	return &NameRef{Name: n.Value, Pos: d.pos(n.Node)}
}

func (d *decoder) stateRef(n ynode) *StateRef {
	if n.Node == nil {
		return nil
	}
	return &StateRef{Name: n.Value, Pos: d.pos(n.Node)}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

var mcpNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// fileDoc is the top level of a spec.
type fileDoc struct {
	Version, Package, Output, Validators, Tools, Prompts, Resources, Lint ynode
}

func (d *decoder) decodeFile(root *yaml.Node) *File {
	f := &File{Path: d.file, Output: ".", Pos: d.pos(root)}
	var doc fileDoc
	decodeInto(root, &doc)
	if doc.Version.Node != nil {
		f.Version = d.intVal(doc.Version.Node)
	}
	if doc.Package.Node != nil {
		f.Package, f.PackagePos = doc.Package.Value, d.pos(doc.Package.Node)
	}
	if n := doc.Output.Node; n != nil {
		f.OutputPos = d.pos(n)
		f.Output = path.Clean(strings.ReplaceAll(n.Value, `\`, "/"))
		if path.IsAbs(f.Output) {
			d.errorf(n, "output", "give a path relative to the spec file", "output %q must be relative to the spec file's directory", n.Value)
		}
	}
	f.Validators = d.decodeValidators(doc.Validators.Node)
	f.Tools = d.decodeWorkflows(vocab.KindTool, doc.Tools.Node)
	f.Prompts = d.decodeWorkflows(vocab.KindPrompt, doc.Prompts.Node)
	f.Resources = d.decodeWorkflows(vocab.KindResource, doc.Resources.Node)
	if doc.Lint.Node != nil {
		f.Lint = d.decodeLint(doc.Lint.Node)
	}
	return f
}

// validatorDoc is one validator of validators:.
type validatorDoc struct {
	Type, Description string
	Reads             ynode
}

// decodeValidators decodes the validators, sorted by name.
func (d *decoder) decodeValidators(n *yaml.Node) []*Validator {
	var out []*Validator
	for _, vp := range pairs(n) {
		v := &Validator{Name: vp.key, Pos: d.pos(vp.k)}
		d.checkIdent(vp.k, "validator")
		var doc validatorDoc
		decodeInto(vp.v, &doc)
		v.Type, v.Description = fieldTypeByName[doc.Type], doc.Description
		if doc.Reads.Node != nil {
			v.ReadsPos = d.pos(keyNode(vp.v, "reads"))
			for _, item := range doc.Reads.Content {
				if item.Kind == yaml.ScalarNode && item.Value != "" {
					v.Reads = append(v.Reads, ValueRef{Path: strings.Split(item.Value, "."), Pos: d.pos(item)})
				}
			}
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b *Validator) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// decodeWorkflows decodes the tools, prompts or resources, sorted by name.
func (d *decoder) decodeWorkflows(kind vocab.Kind, n *yaml.Node) []*Tool {
	d.kind = kind
	var out []*Tool
	for _, tp := range pairs(n) {
		out = append(out, d.decodeWorkflow(tp))
	}
	slices.SortFunc(out, func(a, b *Tool) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (d *decoder) checkIdent(n *yaml.Node, what string) {
	if !isIdent(n.Value) {
		d.errorf(n, "schema", "use letters, digits and underscores, starting with a letter", "%s name %q is not a valid name", what, n.Value)
	}
}

// workflowDoc is one tool, prompt or resource.
type workflowDoc struct {
	Title, Description                 string
	URI                                *string `yaml:"uri"`
	URITemplate                        *string `yaml:"uriTemplate"`
	MIMEType                           *string `yaml:"mimeType"`
	Destructive                        bool
	NonInteractive                     bool `yaml:"nonInteractive"`
	Requires, Task, Arguments, Initial ynode
	Continuation, States, Questions    ynode
	OnDecline                          ynode `yaml:"onDecline"`
	OnCancel                           ynode `yaml:"onCancel"`
	OnExpire                           ynode `yaml:"onExpire"`
	Lint                               ynode
}

// decodeWorkflow decodes one tool, prompt or resource: its own keys, then
// its states, then the shared questions its asks use.
func (d *decoder) decodeWorkflow(tp pair) *Tool {
	t := &Tool{Kind: d.kind, Name: tp.key, Pos: d.pos(tp.k)}
	if !mcpNameRE.MatchString(tp.key) {
		d.errorf(tp.k, "schema", "MCP names are 1-128 characters of A-Z a-z 0-9 _ . -", "%s name %q is not a valid MCP name", d.kind, tp.key)
	}
	d.uses = nil
	var doc workflowDoc
	decodeInto(tp.v, &doc)
	keys := keyNodes(tp.v)
	d.workflowKeys(t, &doc, keys)
	d.checkResource(t, tp.k, keys)
	if t.Continuation == nil {
		t.Continuation = &Continuation{TTL: DefaultTTL, Storage: vocab.Sealed, MaxBytes: DefaultMaxBytes, Pos: t.Pos, TTLPos: t.Pos}
	}
	t.OnDecline, t.OnCancel, t.OnExpire = d.stateRef(doc.OnDecline), d.stateRef(doc.OnCancel), d.stateRef(doc.OnExpire)
	t.States = d.decodeStates(t, doc.States.Node)
	if doc.Questions.Node != nil || len(d.uses) > 0 {
		d.resolveQuestions(t, d.uses, keyNodes(doc.Questions.Node))
	}
	d.uses = nil
	// A sensitive answer is part of the continuation too: it stays
	// server-side unless the spec chose otherwise (lint refuses that).
	if !t.Continuation.StorageSet && sensitiveAnswer(t.States) {
		t.Continuation.Storage = vocab.Reference
	}
	return t
}

// workflowKeys fills in t from the workflow's document, all but its
// states; keys are the workflow's key nodes.
func (d *decoder) workflowKeys(t *Tool, doc *workflowDoc, keys map[string]*yaml.Node) {
	if doc.URI != nil || doc.URITemplate != nil || doc.MIMEType != nil {
		t.Resource = &ResourceDecl{Pos: t.Pos, URI: deref(doc.URI), URITemplate: deref(doc.URITemplate), MIMEType: deref(doc.MIMEType)}
	}
	t.Title, t.Description, t.Destructive, t.NonInteractive = doc.Title, doc.Description, doc.Destructive, doc.NonInteractive
	if k := keys["destructive"]; k != nil && d.kind != vocab.KindTool {
		d.errorf(k, "schema", "", "destructive applies to tools, not %ss", d.kind)
	}
	if n := doc.Requires.Node; n != nil {
		t.RequiresPos = d.pos(n)
		for _, c := range n.Content {
			t.Requires = append(t.Requires, vocab.Capability(c.Value))
		}
		slices.Sort(t.Requires)
	}
	if doc.Task.Node != nil {
		if d.kind == vocab.KindPrompt {
			d.errorf(keys["task"], "schema", "", "task applies to tools, not prompts (prompts/get has no tasks)")
		}
		t.Task = d.decodeTask(doc.Task.Node)
	}
	t.Arguments = d.decodeFields(doc.Arguments.Node, fieldArgument)
	if doc.Continuation.Node != nil {
		t.Continuation = d.decodeContinuation(doc.Continuation.Node)
	}
	if n := doc.Initial.Node; n != nil {
		t.Initial, t.InitialPos = n.Value, d.pos(n)
	}
	if doc.Questions.Node != nil {
		t.Questions = d.decodeQuestions(doc.Questions.Node)
	}
	if doc.Lint.Node != nil {
		t.Lint = d.decodeLint(doc.Lint.Node)
	}
}

// decodeStates decodes the states of a workflow, gives its asks and gates
// the workflow's onDecline and onCancel where they name none, and orders
// them, the initial one first.
func (d *decoder) decodeStates(t *Tool, n *yaml.Node) []*State {
	var states []*State
	for _, sp := range pairs(n) {
		d.checkIdent(sp.k, "state")
		states = append(states, d.decodeState(sp))
	}
	d.applyEndDefaults(t, states)
	return orderStates(t.Initial, states)
}

// keyNodes maps each key of a mapping to its node (nil gives an empty map).
func keyNodes(n *yaml.Node) map[string]*yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return map[string]*yaml.Node{}
	}
	keys := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		keys[n.Content[i].Value] = n.Content[i]
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

// taskDoc is a workflow's task:.
type taskDoc struct {
	Mode                string
	Start, Timeout, TTL ynode
	PollInterval        ynode `yaml:"pollInterval"`
}

func (d *decoder) decodeTask(n *yaml.Node) *TaskDecl {
	var doc taskDoc
	decodeInto(n, &doc)
	td := &TaskDecl{Pos: d.pos(n), Required: doc.Mode == "required"}
	if s := doc.Start.Node; s != nil {
		td.Start, td.StartPos = s.Value, d.pos(s)
	}
	td.Timeout, td.PollInterval, td.TTL = d.optDuration(doc.Timeout), d.optDuration(doc.PollInterval), d.optDuration(doc.TTL)
	return td
}

// continuationDoc is a workflow's continuation:.
type continuationDoc struct {
	Storage     string
	TTL, Fields ynode
	MaxBytes    ynode `yaml:"maxBytes"`
	Transient   ynode
}

func (d *decoder) decodeContinuation(n *yaml.Node) *Continuation {
	c := &Continuation{TTL: DefaultTTL, MaxBytes: DefaultMaxBytes, Pos: d.pos(n), TTLPos: d.pos(n)}
	var doc continuationDoc
	decodeInto(n, &doc)
	if t := doc.TTL.Node; t != nil {
		c.TTL, c.TTLSet, c.TTLPos = d.duration(t), true, d.pos(t)
	}
	if doc.MaxBytes.Node != nil {
		c.MaxBytes = d.intVal(doc.MaxBytes.Node)
	}
	c.Fields = d.decodeFields(doc.Fields.Node, fieldContinuation)
	c.Transient = d.decodeTransient(doc.Transient.Node)
	switch doc.Storage {
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

// decodeTransient decodes continuation.transient: each value is a field
// (its type and constraints) plus from: (the handler method computing it)
// and reads: (what that method reads). The two are taken off a copy of the
// mapping before the rest is decoded as a continuation field.
func (d *decoder) decodeTransient(n *yaml.Node) []*Transient {
	var out []*Transient
	for _, p := range pairs(n) {
		d.checkIdent(p.k, "transient value")
		rest := *p.v
		rest.Content = nil
		tv := &Transient{}
		for _, kv := range pairs(p.v) {
			switch kv.key {
			case "from":
				if kv.v.Kind == yaml.ScalarNode && kv.v.Value != "" {
					d.checkIdent(kv.v, "method")
					tv.From = &NameRef{Name: kv.v.Value, Pos: d.pos(kv.v)}
				}
			case "reads":
				tv.ReadsSet = true
				for _, item := range kv.v.Content {
					if item.Kind == yaml.ScalarNode && item.Value != "" {
						tv.Reads = append(tv.Reads, &ValueRef{Path: strings.Split(item.Value, "."), Pos: d.pos(item)})
					}
				}
			default:
				rest.Content = append(rest.Content, kv.k, kv.v)
			}
		}
		if p.v.Kind == yaml.MappingNode && tv.From == nil {
			d.errorf(p.k, "transient", "name the handler method that computes it: from: renderLog", "transient value %q has no from:", p.key)
		}
		if p.v.Kind == yaml.MappingNode && !tv.ReadsSet {
			d.errorf(p.k, "transient", "list the arguments and continuation fields its method reads (reads: [runId]; reads: [] when it reads none): lint checks each is set wherever it is rendered",
				"transient value %q has no reads:", p.key)
		}
		tv.Field = d.decodeField(p.key, p.k, &rest, fieldContinuation)
		out = append(out, tv)
	}
	methods := map[string]*Transient{}
	for _, tv := range out {
		if tv.From == nil {
			continue
		}
		if first := methods[tv.From.Name]; first != nil {
			d.diagAt(tv.From.Pos, "transient", "give each transient value its own method (one method returns one value)",
				"transient values %q and %q are both computed by %s (line %d)", first.Name, tv.Name, tv.From.Name, first.From.Pos.Line)
			continue
		}
		methods[tv.From.Name] = tv
	}
	slices.SortFunc(out, func(a, b *Transient) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// lintDoc is a lint: block.
type lintDoc struct {
	Ignore ynode
}

func (d *decoder) decodeLint(n *yaml.Node) *LintConfig {
	lc := &LintConfig{Pos: d.pos(n)}
	var doc lintDoc
	decodeInto(n, &doc)
	for _, ip := range pairs(doc.Ignore.Node) {
		if strings.TrimSpace(ip.v.Value) == "" {
			d.errorf(ip.v, "lint-ignore", "say why the rule does not apply here", "ignoring rule %q needs a reason", ip.key)
		}
		lc.Ignore = append(lc.Ignore, Suppression{Rule: ip.key, Reason: ip.v.Value, Pos: d.pos(ip.k)})
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
