package spec

import (
	"strings"
	"testing"
)

// contentSpec is a spec with one workflow of kind (tools, prompts or
// resources) whose body is body (indented under the workflow's name).
func contentSpec(kind, body string) []byte {
	return []byte("version: 1\npackage: p\n" + kind + ":\n  w:\n    description: D.\n" + body)
}

// The loader refuses content, resources and completions that do not fit,
// at the key that is wrong.
func TestContentMisuse(t *testing.T) {
	terminal := func(extra string) string {
		return "    initial: done\n    states:\n      done:\n        terminal: success\n" + extra
	}
	for _, c := range []struct {
		name             string
		data             []byte
		pos, rule, words string
	}{
		{"content on a prompt", contentSpec("prompts", terminal("        messages: [{role: user, text: hi}]\n        content:\n          - image: {mimeType: image/png, from: pic}\n")),
			"11:9", "state", `state "done": content is for tools`},
		{"contents on a tool", contentSpec("tools", terminal("        contents:\n          - text: hi\n")),
			"10:9", "state", `state "done": contents is for resources`},
		{"a resource without contents", contentSpec("resources", "    uri: x://y\n"+terminal("")),
			"10:9", "state", `resource terminal state "done" has no contents`},
		{"a resource without a uri", contentSpec("resources", terminal("        contents:\n          - text: hi\n")),
			"4:3", "schema", `resource "w" has no uri or uriTemplate`},
		{"uri and uriTemplate", contentSpec("resources", "    uri: x://y\n    uriTemplate: x://{a}\n"+terminal("        contents:\n          - text: hi\n")),
			"7:5", "schema", `resource "w" has both uri and uriTemplate`},
		{"a template without variables", contentSpec("resources", "    uriTemplate: x://y\n"+terminal("        contents:\n          - text: hi\n")),
			"6:5", "schema", `has no {variable}`},
		{"a level-2 expression", contentSpec("resources", "    uriTemplate: x://{a}/{+path}\n"+terminal("        contents:\n          - text: hi\n")),
			"6:5", "schema", `has expression {+path}, which is not served`},
		{"a uri with a variable", contentSpec("resources", "    uri: x://{a}\n"+terminal("        contents:\n          - text: hi\n")),
			"6:5", "schema", `has a {variable}`},
		{"an argument that is no variable", contentSpec("resources", "    uriTemplate: x://{a}\n    arguments:\n      a: {type: string, maxLength: 3}\n      b: {type: string, maxLength: 3}\n"+terminal("        contents:\n          - text: hi\n")),
			"9:7", "schema", `argument "b" of resource "w" is not a variable`},
		{"a variable not declared", contentSpec("resources", "    uriTemplate: x://{a}/{b}\n    arguments:\n      a: {type: string, maxLength: 3}\n"+terminal("        contents:\n          - text: hi\n")),
			"7:5", "schema", `declares arguments but not {b}`},
		{"uri on a tool", contentSpec("tools", "    uri: x://y\n"+terminal("        message: hi\n")),
			"6:5", "schema", "uri applies to resources, not tools"},
		{"a resource with text and from", contentSpec("resources", "    uri: x://y\n"+terminal("        contents:\n          - {text: hi, from: body}\n")),
			"12:13", "schema", ""},
		{"an embedded resource without uri", contentSpec("tools", terminal("        content:\n          - resource: {mimeType: text/plain, text: hi}\n")),
			"11:13", "state", "an embedded resource needs uri and mimeType"},
		{"complete on a tool's argument", contentSpec("tools", "    arguments:\n      a: {type: string, maxLength: 3, complete: {values: [x]}}\n"+terminal("        message: hi\n")),
			"7:39", "field", "complete does not apply here"},
		{"a failed resource with contents", contentSpec("resources", "    uri: x://y\n    initial: done\n    states:\n      done:\n        terminal: failed\n        message: no\n        contents:\n          - text: hi\n"),
			"12:9", "state", "a resource that ends failed returns no contents"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ds := Parse("p.mrtr.yaml", c.data, Options{})
			if c.words == "" {
				if len(ds) == 0 || !strings.Contains(ds.Error(), c.pos) {
					t.Fatalf("want an error at %s, got %v", c.pos, ds)
				}
				return
			}
			expectDiag(t, ds, c.pos, c.rule, c.words)
		})
	}
}

// A resource's arguments are its template's variables: without
// arguments, required strings; content items and completions load as
// written.
func TestResourceLoads(t *testing.T) {
	f, ds := Parse("p.mrtr.yaml", []byte(`version: 1
package: p
resources:
  w:
    description: D.
    uriTemplate: x://{b}/{a}
    mimeType: text/plain
    initial: done
    states:
      done:
        terminal: success
        contents:
          - text: '{a} {b}'
          - {uri: 'x://{a}/bin', mimeType: image/png, from: body}
prompts:
  p:
    description: P.
    arguments:
      q: {type: string, maxLength: 9, complete: {values: [x, y]}}
    initial: done
    states:
      done:
        terminal: success
        messages:
          - role: user
            image: {mimeType: image/png, from: pic}
          - role: user
            text: '{q}'
`), Options{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	r := f.Resources[0]
	if len(r.Arguments) != 2 || r.Arguments[0].Name != "a" || !r.Arguments[0].Required || r.Arguments[0].Type != TypeString {
		t.Fatalf("arguments %+v", r.Arguments)
	}
	if got := r.Resource.Variables(); strings.Join(got, ",") != "b,a" {
		t.Fatalf("variables %v", got)
	}
	c := r.State("done").Content
	if len(c) != 2 || c[0].Kind != ContentResource || c[0].Text == nil || c[1].From == nil || c[1].From.Name != "body" {
		t.Fatalf("contents %+v", c)
	}
	p := f.Prompts[0]
	if m := p.State("done").Messages[0]; m.Content == nil || m.Content.Kind != ContentImage || m.Content.MIMEType != "image/png" {
		t.Fatalf("message %+v", m)
	}
	if cp := p.Arguments[0].Complete; cp == nil || strings.Join(cp.Values, ",") != "x,y" {
		t.Fatalf("completion %+v", cp)
	}
	if len(f.Workflows()) != 2 {
		t.Fatalf("workflows %d", len(f.Workflows()))
	}
}
