package spec_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/lint"
	"github.com/mrtrgen/mrtrgen/spec"
)

// The notFound example of docs/spec.md is a whole spec: it loads, passes
// lint without findings, and marks its not-found end.
func TestNotFoundDocExample(t *testing.T) {
	f := docExample(t, "notFound: true")
	s := f.Resources[0].State("noSuchRelease")
	if s == nil || !s.NotFound || f.Resources[0].State("done").NotFound {
		t.Fatalf("noSuchRelease: %+v", s)
	}
}

// notFound is for a resource's failed terminal states: elsewhere it is an
// error at the key, saying why.
func TestNotFoundMisplaced(t *testing.T) {
	const resource = `version: 1
package: p
resources:
  notes:
    description: Notes.
    uriTemplate: notes://{id}
    initial: find
    states:
      find: {check: findNote, outcomes: {found: done, unknown: missing}%s}
      done: {terminal: success, contents: [{text: A note.}]%s}
      missing: {terminal: failed, message: No such note.%s}
`
	const tool = `version: 1
package: p
tools:
  close:
    description: Close.
    initial: done
    states:
      done: {terminal: failed, message: No such ticket., notFound: true}
`
	for _, c := range []struct{ name, src, want string }{
		{"on a failed resource end", fmt.Sprintf(resource, "", "", ", notFound: true"), ""},
		{"on a tool", tool, `p.mrtr.yaml:8:58: error: state "done": notFound is for resources (resources/read); a tool has no resource to miss`},
		{"on a success end", fmt.Sprintf(resource, "", ", notFound: true", ""), `p.mrtr.yaml:10:62: error: state "done": notFound needs terminal: failed (it ends success)`},
		{"on a check", fmt.Sprintf(resource, ", notFound: true", "", ""), `p.mrtr.yaml:9:74: error: state "find": notFound does not apply to a check state`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, ds := spec.Parse("p.mrtr.yaml", []byte(c.src), spec.Options{})
			if c.want == "" {
				if f == nil || ds.HasErrors() || !f.Resources[0].State("missing").NotFound {
					t.Fatalf("refused: %v", ds)
				}
				return
			}
			if !ds.HasErrors() || !strings.Contains(ds.Error(), c.want) {
				t.Fatalf("want %q, got:\n%s", c.want, ds.Error())
			}
		})
	}
}

// docExample loads the yaml block of docs/spec.md that contains marker as
// a whole spec (after "version: 1" and a package line) and checks that it
// loads and passes lint without findings.
func docExample(t *testing.T, marker string) *spec.File {
	t.Helper()
	b, err := os.ReadFile("../docs/spec.md")
	if err != nil {
		t.Fatal(err)
	}
	var example string
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		if strings.Contains(m[1], marker) {
			example = m[1]
		}
	}
	if example == "" {
		t.Fatalf("docs/spec.md has no yaml block with %q", marker)
	}
	f, ds := spec.Parse("example.mrtr.yaml", []byte("version: 1\npackage: example\n"+example), spec.Options{})
	if f == nil || ds.HasErrors() {
		t.Fatalf("the example does not load:\n%s", ds.Error())
	}
	if ls := lint.Run(f); len(ls) > 0 {
		t.Fatalf("lint findings on the example:\n%s", ls.Error())
	}
	return f
}
