package spec_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"go.yaml.in/yaml/v3"

	"github.com/mrtrgen/mrtrgen/spec"
)

// compileSchema compiles the embedded schema on its own, as an editor would.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	if !json.Valid(spec.SchemaJSON) {
		t.Fatal("the embedded schema is not JSON")
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(spec.SchemaURL, bytes.NewReader(spec.SchemaJSON)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(spec.SchemaURL)
	if err != nil {
		t.Fatalf("the embedded schema does not compile: %v", err)
	}
	return s
}

// yamlToJSON reads YAML into the values a JSON parser would give.
func yamlToJSON(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var out any
	if err := d.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every example validates against the schema by itself, without the
// loader: what editors see agrees with what mrtrgen accepts.
func TestExamplesValidateAgainstSchema(t *testing.T) {
	sch := compileSchema(t)
	paths, _ := filepath.Glob("../examples/specs/*.mrtr.yaml")
	if len(paths) == 0 {
		t.Fatal("no examples")
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(yamlToJSON(t, data)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		if !bytes.Contains(data, []byte("# yaml-language-server: $schema=")) {
			t.Errorf("%s does not point editors at the schema", p)
		}
	}
}

// Schema failures are reported where they are, in words.
func TestSchemaErrorPositions(t *testing.T) {
	const head = "version: 1\npackage: fixture\n"
	const tool = head + `tools:
  ping:
    description: Answer a ping.
    initial: done
    states:
      done: {terminal: success, message: pong}
`
	for _, tc := range []struct {
		name, src string
		line, col int
		msg, hint string // substrings
	}{
		{"unknown top-level key", head + "tols: {}\n", 3, 1, `unknown key "tols" in the spec`, `did you mean "tools"?`},
		{"unknown nested key", strings.Replace(tool, "    initial:", "    intial: done\n    initial:", 1), 6, 5, `unknown key "intial" in tools.ping`, `did you mean "initial"?`}, //nolint:misspell // the typo is the test
		{"unknown key without suggestion", strings.Replace(tool, "    initial:", "    zzzzzzzz: 1\n    initial:", 1), 6, 5, `unknown key "zzzzzzzz"`, "allowed keys: arguments, continuation"},
		{"wrong type", strings.Replace(tool, "description: Answer a ping.", "description: [a, b]", 1), 5, 18, "tools.ping.description: expected string, got array", ""},
		{"wrong scalar type", strings.Replace(tool, "    initial:", "    destructive: 'yes'\n    initial:", 1), 6, 18, `tools.ping.destructive: expected boolean, got string "yes"`, "write true or false"},
		{"missing required key", strings.Replace(tool, "    description: Answer a ping.\n", "", 1), 4, 3, `tools.ping is missing required key "description"`, ""},
		{"missing top-level key", "version: 1\ntools: {}\n", 1, 1, `the spec is missing required key "package"`, ""},
		{"bad enum value", strings.Replace(tool, "terminal: success", "terminal: sucess", 1), 8, 24, `tools.ping.states.done.terminal: "sucess" is not one of "success", "cancelled", "failed"`, `did you mean "success"?`}, //nolint:misspell // the typo is the test
		{"bad duration", strings.Replace(tool, "    initial:", "    continuation: {ttl: 5 minutes}\n    initial:", 1), 6, 25, `tools.ping.continuation.ttl: "5 minutes" is not a duration such as 90s, 10m or 1h30m`, ""},
		{"bad identifier", strings.Replace(tool, "initial: done", "initial: 2done", 1), 6, 14, `"2done" is not a name of letters, digits and underscores`, ""},
		{"bad constant", strings.Replace(tool, "version: 1", "version: 2", 1), 1, 10, "version must be 1, not 2", ""},
		{"non-finite number", strings.Replace(tool, "    initial:", "    arguments: {x: {type: number, maximum: .inf}}\n    initial:", 1), 6, 44, "tools.ping.arguments.x.maximum: .inf is not a finite number", ""},
		{"key needing escapes", strings.Replace(tool, "  ping:", "  \"a/b c~d\":", 1) + "    extra: 1\n", 9, 5, `unknown key "extra" in tools.a/b c~d`, "allowed keys: arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ds := spec.Parse("x.mrtr.yaml", []byte(tc.src), spec.Options{})
			if f != nil || len(ds) == 0 {
				t.Fatalf("loaded:\n%s", tc.src)
			}
			d := ds[0]
			if d.Pos.Line != tc.line || d.Pos.Col != tc.col || !strings.Contains(d.Message, tc.msg) || !strings.Contains(d.Hint, tc.hint) || d.Rule != "schema" {
				t.Errorf("got %s (hint %q)\nwant %d:%d %q (hint %q)\nall:\n%s\nsource:\n%s", d, d.Hint, tc.line, tc.col, tc.msg, tc.hint, ds.Error(), tc.src)
			}
		})
	}
}
