package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"unicode"

	"github.com/mrtrgen/mrtrgen/internal/plainjson"
	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// JSON Schemas the generated code hands to clients: a tool's inputSchema
// and each elicitation's requestedSchema. Properties are listed in the
// order the spec author wrote them, which is the order clients render a
// form's fields in; every other key is sorted (encoding/json sorts maps),
// so the output is stable.

// properties is a JSON object whose keys keep their order.
type properties []property

type property struct {
	name   string
	schema any
}

func (ps properties) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(p.name)
		if err != nil {
			return nil, err
		}
		v, err := plainjson.Marshal(p.schema)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// fieldTitle is the title a form shows for f: its own, or one made from its
// name ("closeReason" → "Close reason"), never the raw key.
func fieldTitle(f *spec.Field) string {
	if f.Title != "" {
		return f.Title
	}
	var words []string
	word := []rune{}
	flush := func() {
		if len(word) > 0 {
			words = append(words, strings.ToLower(string(word)))
			word = word[:0]
		}
	}
	rs := []rune(f.Name)
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == '.':
			flush()
			continue
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))):
			flush()
		}
		word = append(word, r)
	}
	flush()
	if len(words) == 0 {
		return f.Name
	}
	t := strings.Join(words, " ")
	r := []rune(t)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

func marshalSchema(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // maps of plain values cannot fail
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// fieldSchema is the JSON Schema of one field. Forms get the subset MCP
// elicitation allows (no pattern: it is checked server-side instead).
func fieldSchema(f *spec.Field, form bool) map[string]any {
	s := map[string]any{}
	if f.Title != "" {
		s["title"] = f.Title
	} else if form {
		s["title"] = fieldTitle(f)
	}
	if f.Description != "" {
		s["description"] = f.Description
	}
	if f.Default != nil {
		s["default"] = f.Default
	}
	switch f.Type {
	case spec.TypeString:
		s["type"] = "string"
		if f.MinLength != nil {
			s["minLength"] = *f.MinLength
		}
		if f.MaxLength != nil {
			s["maxLength"] = *f.MaxLength
		}
		if f.Pattern != "" && !form {
			s["pattern"] = "^(?:" + f.Pattern + ")$"
		}
		if f.Format != "" {
			s["format"] = f.Format
		}
	case spec.TypeNumber, spec.TypeInteger:
		s["type"] = "number"
		if f.Type == spec.TypeInteger {
			s["type"] = "integer"
		}
		if f.Minimum != nil {
			s["minimum"] = *f.Minimum
		}
		if f.Maximum != nil {
			s["maximum"] = *f.Maximum
		}
	case spec.TypeBoolean:
		s["type"] = "boolean"
	case spec.TypeEnum:
		s["type"] = "string"
		if f.Dynamic() {
			// Its options are the flow's: mrtrimpl.X.OfferSchema adds oneOf
			// when the form is built, and an inputSchema takes any string
			// (the answer is checked against the options at run time).
			break
		}
		if hasTitles(f.Values) {
			s["oneOf"] = titled(f.Values)
		} else {
			s["enum"] = values(f.Values)
		}
	case spec.TypeArray:
		s["type"] = "array"
		if f.Items != nil {
			if f.Items.Dynamic() {
				s["items"] = map[string]any{"type": "string"} // the options: see TypeEnum
			} else if f.Items.Type == spec.TypeEnum && hasTitles(f.Items.Values) {
				s["items"] = map[string]any{"anyOf": titled(f.Items.Values)}
			} else {
				s["items"] = fieldSchema(f.Items, form)
			}
		}
		if f.MinItems != nil {
			s["minItems"] = *f.MinItems
		}
		if f.MaxItems != nil {
			s["maxItems"] = *f.MaxItems
		}
		// MCP's multi-select form schema has no uniqueItems: a form's
		// duplicates are refused server-side, with a message.
		if f.UniqueItems && !form {
			s["uniqueItems"] = true
		}
	}
	return s
}

func hasTitles(vs []spec.EnumValue) bool {
	for _, v := range vs {
		if v.Title != "" {
			return true
		}
	}
	return false
}

func titled(vs []spec.EnumValue) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		title := v.Title
		if title == "" {
			title = v.Value
		}
		out[i] = map[string]any{"const": v.Value, "title": title}
	}
	return out
}

func values(vs []spec.EnumValue) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Value
	}
	return out
}

func objectSchema(fields []*spec.Field, form bool) map[string]any {
	props := properties{}
	var required []string
	// As the spec author wrote them: the order is part of the form's design.
	fields = slices.Clone(fields)
	slices.SortStableFunc(fields, func(a, b *spec.Field) int { return a.Written - b.Written })
	for _, f := range fields {
		props = append(props, property{f.Name, fieldSchema(f, form)})
		if f.Required {
			required = append(required, f.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// inputSchema is the tool's MCP inputSchema.
func (w *workflow) inputSchema() []byte {
	s := objectSchema(w.t.Arguments, false)
	s["additionalProperties"] = false
	if w.t.NonInteractive {
		answers := map[string]any{}
		for _, st := range w.t.States {
			for _, q := range st.Requests {
				switch q.Kind {
				case vocab.Elicit:
					answers[q.Key] = objectSchema(q.Fields, true)
				case vocab.Sample:
					a := map[string]any{"type": "string"}
					if q.MaxLength != nil {
						a["maxLength"] = *q.MaxLength
					}
					answers[q.Key] = a
				case vocab.Roots:
					a := map[string]any{"type": "array", "items": map[string]any{"type": "string", "format": "uri"}, "maxItems": q.MaxItems}
					if q.MinItems != nil {
						a["minItems"] = *q.MinItems
					}
					answers[q.Key] = a
				}
			}
			if st.Confirm != nil {
				answers[st.Confirm.Key] = map[string]any{"type": "boolean"}
			}
		}
		s["properties"] = append(s["properties"].(properties), property{"inputs", map[string]any{
			"type":                 "object",
			"description":          "Answers supplied up front, by input request key, for clients that cannot answer input requests. Each answer is validated like an interactive one.",
			"properties":           answers,
			"additionalProperties": false,
		}})
	}
	return marshalSchema(s)
}

// requestedSchema is an elicitation's form.
func requestedSchema(q *spec.InputRequest) []byte { return marshalSchema(objectSchema(q.Fields, true)) }

// gateSchema is a confirmation gate's one-boolean form.
func gateSchema(g *spec.Gate) []byte {
	return marshalSchema(map[string]any{
		"type":       "object",
		"properties": map[string]any{g.Field: map[string]any{"type": "boolean", "title": "Confirm"}},
		"required":   []string{g.Field},
	})
}

// schemaHash identifies everything the continuation encoding depends on:
// the states and their numbers, the storage mode, the continuation fields
// and every answer's shape. A token sealed under another hash is refused
// cleanly instead of being misread.
func (w *workflow) schemaHash() uint64 {
	var b strings.Builder
	fmt.Fprintf(&b, "mrtrgen/continuation/v1|%s|%s|%s|", w.t.Kind, w.t.Name, w.t.Continuation.Storage)
	for _, s := range w.t.States {
		fmt.Fprintf(&b, "state:%d:%s:%s|", w.num[s.Name], s.Name, s.Kind)
	}
	writeFields := func(prefix string, fs []*spec.Field, optional func(*spec.Field) bool) {
		for _, f := range fs {
			fmt.Fprintf(&b, "%s:%s:%s:%t", prefix, f.Name, typeSig(f), optional(f))
			b.WriteByte('|')
		}
	}
	writeFields("arg", w.t.Arguments, optional)
	writeFields("cont", w.t.Continuation.Fields, func(*spec.Field) bool { return false })
	for _, q := range w.requests() {
		fmt.Fprintf(&b, "answer:%s:%d|", q.Key, q.Kind)
		writeFields("form:"+q.Key, q.Fields, optional)
	}
	h := fnv.New64a()
	h.Write([]byte(b.String()))
	return h.Sum64()
}

func typeSig(f *spec.Field) string {
	switch f.Type {
	case spec.TypeEnum:
		if f.Dynamic() {
			return "enum<" + f.ValuesFrom.Name + ">" // carried as a string
		}
		return "enum[" + strings.Join(values(f.Values), ",") + "]"
	case spec.TypeArray:
		if f.Items != nil {
			return "array[" + typeSig(f.Items) + "]"
		}
	}
	return f.Type.String()
}
