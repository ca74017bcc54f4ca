package spec

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// SchemaJSON is the JSON Schema (draft 2020-12) of spec files, version 1.
// The loader validates every file against it; `mrtrgen schema` prints it for
// editors (# yaml-language-server: $schema=...).
//
//go:embed schema/mrtr.v1.schema.json
var SchemaJSON []byte

// SchemaURL is the schema's $id.
const SchemaURL = "https://raw.githubusercontent.com/mrtrgen/mrtrgen/main/spec/schema/mrtr.v1.schema.json"

// SchemaFile is the name of the schema saved next to a spec (mrtrgen init
// writes it; mrtrgen schema prints it): a starter spec points its editor
// at this local file, which resolves offline and matches the mrtrgen
// that wrote it, where SchemaURL needs the network and names the schema
// of the newest source.
const SchemaFile = "mrtr.v1.schema.json"

// compiledSchemas are the schema of a whole spec and of one workflow (a
// tool or prompt), compiled once.
var compiledSchemas = sync.OnceValues(func() ([2]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = false
	if err := c.AddResource(SchemaURL, bytes.NewReader(SchemaJSON)); err != nil {
		return [2]*jsonschema.Schema{}, err
	}
	root, err := c.Compile(SchemaURL)
	if err != nil {
		return [2]*jsonschema.Schema{}, err
	}
	workflow, err := c.Compile(SchemaURL + "#/$defs/workflow")
	return [2]*jsonschema.Schema{root, workflow}, err
})

// parallelWorkflows is how many tools and prompts a spec needs before the
// schema checks them on several cores.
const parallelWorkflows = 64

// schemaFailures validates doc and returns the failures, each a leaf of the
// validator's error tree. A large spec's workflows are validated
// concurrently, each against the workflow schema; their failures' instance
// locations are then made absolute.
func schemaFailures(schemas [2]*jsonschema.Schema, doc any) []*jsonschema.ValidationError {
	var out []*jsonschema.ValidationError
	collect := func(err error) []*jsonschema.ValidationError {
		if err == nil {
			return nil
		}
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return leaves(ve)
		}
		return []*jsonschema.ValidationError{{InstanceLocation: "", Message: err.Error()}}
	}
	type workflow struct {
		prefix string // escaped as the validator escapes locations
		value  any
	}
	var wfs []workflow
	m, ok := doc.(map[string]any)
	if ok {
		n := 0
		for _, k := range []string{"tools", "prompts"} {
			if wm, ok := m[k].(map[string]any); ok {
				n += len(wm)
			}
		}
		if n >= parallelWorkflows {
			shallow := make(map[string]any, len(m))
			for k, v := range m {
				shallow[k] = v
			}
			for _, k := range []string{"tools", "prompts"} {
				if wm, ok := m[k].(map[string]any); ok {
					for name, v := range wm {
						wfs = append(wfs, workflow{"/" + k + "/" + url.PathEscape(escapePointer(name)), v})
					}
					shallow[k] = map[string]any{}
				}
			}
			doc = shallow
		}
	}
	out = collect(schemas[0].Validate(doc))
	if len(wfs) == 0 {
		return out
	}
	workers := min(runtime.GOMAXPROCS(0), len(wfs))
	results := make([][]*jsonschema.ValidationError, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(wfs); i += workers {
				for _, leaf := range collect(schemas[1].Validate(wfs[i].value)) {
					leaf.InstanceLocation = wfs[i].prefix + leaf.InstanceLocation
					results[w] = append(results[w], leaf)
				}
			}
		}()
	}
	wg.Wait()
	for _, r := range results {
		out = append(out, r...)
	}
	return out
}

// schemaDoc is the schema parsed as plain JSON, used to name the keys an
// object allows when a spec uses an unknown one.
var schemaDoc = sync.OnceValue(func() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(SchemaJSON, &m)
	return m
})

// validateSchema checks a document against the schema and maps each
// failure back to the line and column it came from.
func validateSchema(file string, doc any, pos *locator) Diagnostics {
	schemas, err := compiledSchemas()
	if err != nil {
		// The schema is embedded and tested; failing to compile it is a bug.
		return Diagnostics{{Pos: Pos{File: file}, Severity: Error, Rule: "internal", Message: "cannot compile the embedded schema: " + err.Error()}}
	}
	failures := schemaFailures(schemas, doc)
	if len(failures) == 0 {
		return nil
	}
	// Order the failures by where they are before describing them, so that
	// the output is stable (the validator walks objects in map order) and a
	// file with thousands of them is not described in full.
	type located struct {
		line, col int
		leaf      *jsonschema.ValidationError
	}
	var ls []located
	for _, leaf := range failures {
		at, _ := pos.at(unescapeLocation(leaf.InstanceLocation))
		ls = append(ls, located{at.Line, at.Col, leaf})
	}
	slices.SortFunc(ls, func(a, b located) int {
		if a.line != b.line {
			return a.line - b.line
		}
		return cmp.Or(cmp.Compare(a.col, b.col),
			cmp.Compare(a.leaf.InstanceLocation, b.leaf.InstanceLocation),
			cmp.Compare(a.leaf.KeywordLocation, b.leaf.KeywordLocation), cmp.Compare(a.leaf.Message, b.leaf.Message))
	})
	var ds Diagnostics
	seen := map[string]bool{}
	for i, l := range ls {
		if len(ds) >= maxSchemaDiagnostics {
			at := Pos{File: file, Line: max(l.line, 1), Col: max(l.col, 1)}
			ds = append(ds, Diagnostic{Pos: at, Severity: Error, Rule: "schema",
				Message: fmt.Sprintf("too many schema errors: %d more not shown", len(ls)-i),
				Hint:    "fix the errors above first"})
			break
		}
		for _, d := range describe(file, l.leaf, pos, doc) {
			k := d.Pos.String() + d.Message
			if !seen[k] {
				seen[k] = true
				ds = append(ds, d)
			}
		}
	}
	return ds
}

// maxSchemaDiagnostics bounds what one file reports from the schema phase.
const maxSchemaDiagnostics = 100

func leaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

var (
	reAdditional = regexp.MustCompile(`^additionalProperties .+ not allowed$`)
	reMissing    = regexp.MustCompile(`^missing properties: (.+)$`)
	reQuoted     = regexp.MustCompile(`'((?:[^'\\]|\\.)*)'`)
	reExpected   = regexp.MustCompile(`^expected (\w+), but got (\w+)$`)
	reConst      = regexp.MustCompile(`^value must be "(-?[0-9][0-9.eE+-]*)"$`)
	reNonFinite  = regexp.MustCompile(`^[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)$`)
	// A branch of a oneOf that requires a key, and a value two branches
	// of a oneOf accept.
	reOneOfBranch = regexp.MustCompile(`^(.*/oneOf)/[0-9]+/required$`)
	reOneOfBoth   = regexp.MustCompile(`^valid against schemas at indexes ([0-9]+) and ([0-9]+)$`)
)

// patternMeaning explains the schema's patterns in words.
var patternMeaning = map[string]string{
	"identifier": "a name of letters, digits and underscores, starting with a letter",
	"duration":   "a duration such as 90s, 10m or 1h30m",
	"package":    "a Go package name: lower-case letters and digits, starting with a letter",
}

// describe turns one schema failure into diagnostics a person can act on.
// doc is the validated document, to quote the offending value.
func describe(file string, ve *jsonschema.ValidationError, pos *locator, doc any) Diagnostics {
	// The validator escapes instance locations as URI fragments
	// (a key "bad name" is /bad%20name); the positions are keyed by plain
	// JSON pointers.
	loc := unescapeLocation(ve.InstanceLocation)
	at, ok := pos.at(loc)
	if !ok {
		at = Pos{File: file, Line: 1, Col: 1}
	}
	val, _ := pointerValue(doc, loc)
	f := &schemaFailure{ve: ve, pos: pos, loc: loc, at: at, where: readablePath(loc), val: val}
	msg := ve.Message
	if reAdditional.MatchString(msg) {
		return f.unknownKeys()
	}
	if m := reOneOfBranch.FindStringSubmatch(ve.AbsoluteKeywordLocation); m != nil && reMissing.MatchString(msg) {
		if keys := oneOfKeys(m[1]); keys != nil {
			return f.one(fmt.Sprintf("%s needs one of %s", f.where, strings.Join(keys, ", ")), "")
		}
	}
	if m := reOneOfBoth.FindStringSubmatch(msg); m != nil && strings.HasSuffix(ve.AbsoluteKeywordLocation, "/oneOf") {
		if keys := oneOfKeys(ve.AbsoluteKeywordLocation); keys != nil {
			return f.oneOfBoth(keys, m[1], m[2])
		}
	}
	if m := reMissing.FindStringSubmatch(msg); m != nil {
		return f.missingKeys(m[1])
	}
	if m := reExpected.FindStringSubmatch(msg); m != nil {
		return f.wrongType(m[1], m[2])
	}
	if pattern, ok := strings.CutPrefix(msg, "does not match pattern "); ok {
		return f.patternMismatch(pattern)
	}
	if m := reConst.FindStringSubmatch(msg); m != nil {
		// The validator quotes numeric constants: value must be "1".
		return f.one(fmt.Sprintf("%s must be %s, not %s", f.where, m[1], scalarText(val)), "")
	}
	if list, ok := strings.CutPrefix(msg, "value must be one of "); ok {
		return f.notOneOf(list)
	}
	if msg == "length must be >= 1, but got 0" {
		return f.one(fmt.Sprintf("%s must not be empty", f.where), "")
	}
	if rest, ok := strings.CutPrefix(msg, "value must be "); ok {
		return f.one(fmt.Sprintf("%s must be %s", f.where, rest), "")
	}
	return f.one(fmt.Sprintf("%s: %s", f.where, msg), "")
}

// schemaFailure is one schema failure being described: where it is (the
// JSON pointer, its position and its readable path) and the value there.
type schemaFailure struct {
	ve    *jsonschema.ValidationError
	pos   *locator
	loc   string
	at    Pos
	where string
	val   any
}

func (f *schemaFailure) diag(p Pos, msg, hint string) Diagnostic {
	return Diagnostic{Pos: p, Severity: Error, Rule: "schema", Message: msg, Hint: hint}
}

// one is the failure as one diagnostic at the value.
func (f *schemaFailure) one(msg, hint string) Diagnostics {
	return Diagnostics{f.diag(f.at, msg, hint)}
}

// unknownKeys reports each key the schema does not allow, at the key. The
// validator's message lists the keys in map order and quotes them
// ambiguously (a key may contain quotes and backslashes): they are taken
// from the document instead, sorted.
func (f *schemaFailure) unknownKeys() Diagnostics {
	allowed := allowedKeys(f.ve.AbsoluteKeywordLocation)
	obj, _ := f.val.(map[string]any)
	var unknown []string
	for k := range obj {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	var ds Diagnostics
	for _, key := range unknown {
		p, ok := f.pos.keyAt(f.loc + "/" + escapePointer(key))
		if !ok {
			p = f.at
		}
		ds = append(ds, f.diag(p, fmt.Sprintf("unknown key %q in %s", key, f.where), suggestKey(key, allowed)))
	}
	return ds
}

// oneOfBoth reports a value with two of the keys of which it may have
// one.
func (f *schemaFailure) oneOfBoth(keys []string, i, j string) Diagnostics {
	a, _ := strconv.Atoi(i)
	b, _ := strconv.Atoi(j)
	if a >= len(keys) || b >= len(keys) {
		return f.one(fmt.Sprintf("%s: %s", f.where, f.ve.Message), "")
	}
	return f.one(fmt.Sprintf("%s has both %s and %s", f.where, keys[a], keys[b]), "keep one of "+strings.Join(keys, ", "))
}

// missingKeys reports each required key of list (the validator's quoted
// names) at the key of the object that lacks it (the whole document for
// the top level), not at the object's first child.
func (f *schemaFailure) missingKeys(list string) Diagnostics {
	p, ok := f.pos.keyAt(f.loc)
	if !ok {
		p = f.at
	}
	var ds Diagnostics
	for _, q := range reQuoted.FindAllStringSubmatch(list, -1) {
		ds = append(ds, f.diag(p, fmt.Sprintf("%s is missing required key %q", f.where, q[1]), ""))
	}
	return ds
}

// wrongType reports a value of another type than want, quoting it.
func (f *schemaFailure) wrongType(want, got string) Diagnostics {
	if s, ok := f.val.(string); ok && reNonFinite.MatchString(s) && (want == "number" || want == "integer") {
		return f.one(fmt.Sprintf("%s: %s is not a finite number", f.where, s), "")
	}
	if s := scalarText(f.val); s != "" && f.val != nil {
		got += " " + s
	}
	hint := ""
	if want == "boolean" {
		hint = "write true or false"
	}
	return f.one(fmt.Sprintf("%s: expected %s, got %s", f.where, want, got), hint)
}

// patternMismatch reports a string that does not match pattern, saying in
// words what the schema's own patterns mean.
func (f *schemaFailure) patternMismatch(pattern string) Diagnostics {
	meaning := "of the expected form " + pattern
	switch {
	case strings.Contains(f.ve.AbsoluteKeywordLocation, "/duration/"):
		meaning = patternMeaning["duration"]
	case strings.Contains(f.ve.AbsoluteKeywordLocation, "/identifier/"):
		meaning = patternMeaning["identifier"]
	case strings.HasSuffix(f.ve.KeywordLocation, "/package/pattern"):
		meaning = patternMeaning["package"]
	}
	return f.one(fmt.Sprintf("%s: %s is not %s", f.where, scalarText(f.val), meaning), "")
}

// notOneOf reports a value outside an enum, suggesting the closest one.
func (f *schemaFailure) notOneOf(list string) Diagnostics {
	hint := ""
	if s, ok := f.val.(string); ok {
		var opts []string
		for _, q := range reQuoted.FindAllStringSubmatch(strings.ReplaceAll(list, `"`, "'"), -1) {
			opts = append(opts, q[1])
		}
		if h := suggestKey(s, opts); strings.HasPrefix(h, "did you mean") {
			hint, _, _ = strings.Cut(h, " (")
		}
	}
	return f.one(fmt.Sprintf("%s: %s is not one of %s", f.where, scalarText(f.val), list), hint)
}

func unescapeLocation(loc string) string {
	if !strings.Contains(loc, "%") {
		return loc
	}
	if u, err := url.PathUnescape(loc); err == nil {
		return u
	}
	return loc
}

// pointerValue finds the value a JSON pointer names in a document.
func pointerValue(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	v := doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			c, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = c
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// scalarText quotes a scalar for a message (long ones shortened), and is
// empty for objects and arrays.
func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		if r := []rune(x); len(r) > 40 {
			x = string(r[:40]) + "…"
		}
		return strconv.Quote(x)
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	}
	return ""
}

// readablePath turns a JSON pointer into the dotted path a person would
// write: /tools/close_ticket/states → tools.close_ticket.states.
func readablePath(ptr string) string {
	if ptr == "" {
		return "the spec"
	}
	parts := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	var b strings.Builder
	for i, p := range parts {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		if _, err := strconv.Atoi(p); err == nil {
			fmt.Fprintf(&b, "[%s]", p)
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// allowedKeys finds the properties an object schema allows, from the
// location of its additionalProperties keyword.
func allowedKeys(absLoc string) []string {
	m, _ := schemaNode(strings.TrimSuffix(absLoc, "/additionalProperties")).(map[string]any)
	props, _ := m["properties"].(map[string]any)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// schemaNode is the part of the schema an absolute keyword location names
// (nil when there is none).
func schemaNode(absLoc string) any {
	_, frag, ok := strings.Cut(absLoc, "#")
	if !ok {
		return nil
	}
	var node any = schemaDoc()
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		switch x := node.(type) {
		case map[string]any:
			node = x[strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			node = x[i]
		default:
			return nil
		}
	}
	return node
}

// oneOfKeys are the keys of a oneOf whose every branch requires one key
// (a prompt message is a text, an image...), in the schema's order; nil
// for another oneOf. absLoc is the location of the oneOf keyword.
func oneOfKeys(absLoc string) []string {
	branches, _ := schemaNode(absLoc).([]any)
	var keys []string
	for _, b := range branches {
		m, _ := b.(map[string]any)
		req, _ := m["required"].([]any)
		key, ok := "", len(m) == 1 && len(req) == 1
		if ok {
			key, ok = req[0].(string)
		}
		if !ok {
			return nil
		}
		keys = append(keys, key)
	}
	return keys
}

// suggestKey proposes the closest allowed key to a misspelt one.
func suggestKey(key string, allowed []string) string { return suggest(key, allowed, "allowed keys") }

// suggest proposes the closest of the names a misspelt one could have
// meant, and lists them under label ("allowed keys", "declared states").
func suggest(key string, allowed []string, label string) string {
	if len(allowed) == 0 {
		return ""
	}
	best, bestDist := "", 1<<30
	for _, a := range allowed {
		if d := editDistance(strings.ToLower(key), strings.ToLower(a)); d < bestDist {
			best, bestDist = a, d
		}
	}
	list := label + ": " + strings.Join(allowed, ", ")
	if bestDist <= max(2, len(key)/3) {
		return fmt.Sprintf("did you mean %q? (%s)", best, list)
	}
	return list
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
