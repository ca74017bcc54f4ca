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
	where := readablePath(loc)
	d := func(p Pos, msg, hint string) Diagnostic {
		return Diagnostic{Pos: p, Severity: Error, Rule: "schema", Message: msg, Hint: hint}
	}
	val, _ := pointerValue(doc, loc)
	msg := ve.Message
	if reAdditional.MatchString(msg) {
		// The message lists the keys in map order and quotes them
		// ambiguously (a key may contain quotes and backslashes): take the
		// unknown keys from the document instead, sorted.
		allowed := allowedKeys(ve.AbsoluteKeywordLocation)
		obj, _ := val.(map[string]any)
		var unknown []string
		for k := range obj {
			if !slices.Contains(allowed, k) {
				unknown = append(unknown, k)
			}
		}
		slices.Sort(unknown)
		var ds Diagnostics
		for _, key := range unknown {
			p, ok := pos.keyAt(loc + "/" + escapePointer(key))
			if !ok {
				p = at
			}
			ds = append(ds, d(p, fmt.Sprintf("unknown key %q in %s", key, where), suggestKey(key, allowed)))
		}
		return ds
	}
	if m := reMissing.FindStringSubmatch(msg); m != nil {
		// At the key of the object that lacks it (the whole document for
		// the top level), not at the object's first child.
		p, ok := pos.keyAt(loc)
		if !ok {
			p = at
		}
		var ds Diagnostics
		for _, q := range reQuoted.FindAllStringSubmatch(m[1], -1) {
			ds = append(ds, d(p, fmt.Sprintf("%s is missing required key %q", where, q[1]), ""))
		}
		return ds
	}
	if m := reExpected.FindStringSubmatch(msg); m != nil {
		if s, ok := val.(string); ok && reNonFinite.MatchString(s) && (m[1] == "number" || m[1] == "integer") {
			return Diagnostics{d(at, fmt.Sprintf("%s: %s is not a finite number", where, s), "")}
		}
		got := m[2]
		if s := scalarText(val); s != "" && val != nil {
			got += " " + s
		}
		hint := ""
		if m[1] == "boolean" {
			hint = "write true or false"
		}
		return Diagnostics{d(at, fmt.Sprintf("%s: expected %s, got %s", where, m[1], got), hint)}
	}
	if strings.HasPrefix(msg, "does not match pattern ") {
		meaning := "of the expected form " + strings.TrimPrefix(msg, "does not match pattern ")
		switch {
		case strings.Contains(ve.AbsoluteKeywordLocation, "/duration/"):
			meaning = patternMeaning["duration"]
		case strings.Contains(ve.AbsoluteKeywordLocation, "/identifier/"):
			meaning = patternMeaning["identifier"]
		case strings.HasSuffix(ve.KeywordLocation, "/package/pattern"):
			meaning = patternMeaning["package"]
		}
		return Diagnostics{d(at, fmt.Sprintf("%s: %s is not %s", where, scalarText(val), meaning), "")}
	}
	if m := reConst.FindStringSubmatch(msg); m != nil {
		// The validator quotes numeric constants: value must be "1".
		return Diagnostics{d(at, fmt.Sprintf("%s must be %s, not %s", where, m[1], scalarText(val)), "")}
	}
	if strings.HasPrefix(msg, "value must be one of ") {
		list := strings.TrimPrefix(msg, "value must be one of ")
		hint := ""
		if s, ok := val.(string); ok {
			var opts []string
			for _, q := range reQuoted.FindAllStringSubmatch(strings.ReplaceAll(list, `"`, "'"), -1) {
				opts = append(opts, q[1])
			}
			if h := suggestKey(s, opts); strings.HasPrefix(h, "did you mean") {
				hint, _, _ = strings.Cut(h, " (")
			}
		}
		return Diagnostics{d(at, fmt.Sprintf("%s: %s is not one of %s", where, scalarText(val), list), hint)}
	}
	if msg == "length must be >= 1, but got 0" {
		return Diagnostics{d(at, fmt.Sprintf("%s must not be empty", where), "")}
	}
	if strings.HasPrefix(msg, "value must be ") {
		return Diagnostics{d(at, fmt.Sprintf("%s must be %s", where, strings.TrimPrefix(msg, "value must be ")), "")}
	}
	return Diagnostics{d(at, fmt.Sprintf("%s: %s", where, msg), "")}
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
	_, frag, ok := strings.Cut(absLoc, "#")
	if !ok {
		return nil
	}
	frag = strings.TrimSuffix(frag, "/additionalProperties")
	var node any = schemaDoc()
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		m, ok := node.(map[string]any)
		if !ok {
			return nil
		}
		node = m[strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")]
	}
	m, _ := node.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	slices.Sort(keys)
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
