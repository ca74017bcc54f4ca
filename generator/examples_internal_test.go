package generator

import (
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/spec"
)

// The example options of a list whose titles have a titlePattern (what
// the generated tests' fakes offer) have titles that match it, within
// titleMaxLength; a pattern no title within the bound matches is an error
// that says to give an example.
func TestExampleOptionTitlesMatchTitlePattern(t *testing.T) {
	load := func(items string) *spec.Field {
		t.Helper()
		f, ds := spec.Parse("p.mrtr.yaml", []byte(`version: 1
package: p
tools:
  t:
    description: d
    continuation:
      fields:
        owners: {type: array, maxItems: 3, items: {`+items+`}}
    initial: done
    states:
      done: {terminal: success, message: Done.}
`), spec.Options{})
		if ds.HasErrors() {
			t.Fatal(ds.Error())
		}
		return f.Tools[0].Continuation.Field("owners")
	}
	src := load(`type: option, maxLength: 10, pattern: 'u-[a-z]+', titleMaxLength: 8, titlePattern: 'T[0-9]{3}'`)
	opts, err := exampleOptions(src)
	if err != nil || len(opts) == 0 {
		t.Fatalf("%v, %v", opts, err)
	}
	for _, o := range opts {
		if !src.Items.TitleRegexp.MatchString(o.Title) || len(o.Title) > 8 {
			t.Errorf("example title %q does not match T[0-9]{3}", o.Title)
		}
	}
	// Without a titlePattern the titles stay "Option 1", "Option 2".
	if opts, _ := exampleOptions(load(`type: option, maxLength: 10, pattern: 'u-[a-z]+', titleMaxLength: 8`)); len(opts) == 0 || opts[0].Title != "Option 1" {
		t.Errorf("titles %v, want Option 1...", opts)
	}
	_, err = exampleOptions(load(`type: option, maxLength: 10, pattern: 'u-[a-z]+', titleMaxLength: 2, titlePattern: '[A-Z]{5}'`))
	if err == nil || !strings.Contains(err.Error(), "add example:") {
		t.Errorf("a titlePattern longer than titleMaxLength: %v, want an error asking for an example", err)
	}
}
