// Package docs holds the documentation of mrtrgen and the tests that keep
// it true to the code.
package docs

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

// section is one table of spec.md: the schema object it documents and
// the rows by key.
type section struct {
	pointer string
	rows    map[string]string // key → the whole row
	line    int
}

var (
	schemaMarker = regexp.MustCompile(`^<!-- schema: (#\S*) -->$`)
	rowKey       = regexp.MustCompile("^\\| `([A-Za-z]+)` \\|")
)

// sections parses spec.md: each <!-- schema: POINTER --> marker is
// followed by a table whose first column names the keys.
func sections(t *testing.T) []*section {
	t.Helper()
	b, err := os.ReadFile("spec.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []*section
	var cur *section
	for i, l := range strings.Split(string(b), "\n") {
		if m := schemaMarker.FindStringSubmatch(l); m != nil {
			cur = &section{pointer: m[1], rows: map[string]string{}, line: i + 1}
			out = append(out, cur)
			continue
		}
		if cur == nil {
			continue
		}
		if strings.HasPrefix(l, "#") {
			cur = nil // the next heading ends the section
			continue
		}
		if m := rowKey.FindStringSubmatch(l); m != nil {
			if _, dup := cur.rows[m[1]]; dup {
				t.Errorf("spec.md:%d: key %s documented twice", i+1, m[1])
			}
			cur.rows[m[1]] = l
		}
	}
	return out
}

// objects returns every object schema that has properties, by JSON
// pointer, walking the whole schema.
func objects(t *testing.T) (map[string]map[string]any, map[string]any) {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal(spec.SchemaJSON, &root); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	var walk func(ptr string, v any)
	walk = func(ptr string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if props, ok := m["properties"].(map[string]any); ok {
			out[ptr] = props
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walk(ptr+"/"+k, m[k])
		}
	}
	walk("#", root)
	return out, root
}

// resolve follows a local $ref.
func resolve(root, v map[string]any) map[string]any {
	for {
		ref, ok := v["$ref"].(string)
		if !ok {
			return v
		}
		cur := any(root)
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			cur = cur.(map[string]any)[part]
		}
		v = cur.(map[string]any)
	}
}

// TestSpecDocMatchesSchema fails when a property of the embedded JSON
// Schema is not documented in spec.md, when spec.md documents a key the
// schema does not have, or when a row leaves out an allowed value of an
// enumerated key.
func TestSpecDocMatchesSchema(t *testing.T) {
	objs, root := objects(t)
	secs := sections(t)
	documented := map[string]*section{}
	for _, s := range secs {
		if _, ok := objs[s.pointer]; !ok {
			t.Errorf("spec.md:%d: %s is not an object of the schema", s.line, s.pointer)
			continue
		}
		if documented[s.pointer] != nil {
			t.Errorf("spec.md:%d: %s documented twice", s.line, s.pointer)
		}
		documented[s.pointer] = s
	}
	var ptrs []string
	for p := range objs {
		ptrs = append(ptrs, p)
	}
	slices.Sort(ptrs)
	for _, p := range ptrs {
		s := documented[p]
		if s == nil {
			t.Errorf("the schema object %s (keys %v) has no section in spec.md; add one under <!-- schema: %s -->", p, keysOf(objs[p]), p)
			continue
		}
		for _, k := range keysOf(objs[p]) {
			row, ok := s.rows[k]
			if !ok {
				t.Errorf("spec.md:%d: key %q of %s is not documented", s.line, k, p)
				continue
			}
			prop := resolve(root, objs[p][k].(map[string]any))
			enum, _ := prop["enum"].([]any)
			if items, ok := prop["items"].(map[string]any); ok && enum == nil {
				enum, _ = resolve(root, items)["enum"].([]any)
			}
			for _, v := range enum {
				if !strings.Contains(row, "`"+v.(string)+"`") {
					t.Errorf("spec.md:%d: the row of %q does not list the value `%s`", s.line, k, v)
				}
			}
			if c, ok := prop["const"]; ok && !strings.Contains(row, "`"+jsonText(c)+"`") {
				t.Errorf("spec.md:%d: the row of %q does not give its only value %s", s.line, k, jsonText(c))
			}
		}
		for k := range s.rows {
			if _, ok := objs[p][k]; !ok {
				t.Errorf("spec.md:%d: %s documents key %q, which the schema does not have", s.line, p, k)
			}
		}
	}
	if len(secs) < 10 {
		t.Fatalf("found only %d schema sections in spec.md", len(secs))
	}
}

// Required keys are marked required in the doc, and only they are.
func TestSpecDocRequired(t *testing.T) {
	_, root := objects(t)
	for _, s := range sections(t) {
		obj := lookup(root, s.pointer)
		if obj == nil {
			continue
		}
		var required []string
		for _, r := range asSlice(obj["required"]) {
			required = append(required, r.(string))
		}
		for k, row := range s.rows {
			cells := strings.Split(row, "|")
			if len(cells) < 5 {
				t.Errorf("spec.md:%d: row of %q has %d cells", s.line, k, len(cells)-2)
				continue
			}
			def := strings.TrimSpace(cells[3])
			if slices.Contains(required, k) != (def == "*required*") {
				t.Errorf("spec.md:%d: %s.%s: the schema says required=%v, the default column says %q", s.line, s.pointer, k, slices.Contains(required, k), def)
			}
		}
	}
}

func lookup(root map[string]any, ptr string) map[string]any {
	cur := any(root)
	for _, part := range strings.Split(strings.TrimPrefix(strings.TrimPrefix(ptr, "#"), "/"), "/") {
		if part == "" {
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	m, _ := cur.(map[string]any)
	return m
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func keysOf(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
