package templates

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, name := range []string{Docs, Init} {
		if _, err := Parse(name, nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		src, err := Source(name)
		if err != nil || len(src) == 0 {
			t.Errorf("%s: source %v", name, err)
		}
	}
	if _, err := Parse("nope.tmpl", nil); err == nil {
		t.Error("a missing template parsed")
	}
}

// A key the data lacks is an error, not "<no value>" in a generated file.
func TestMissingKeyFails(t *testing.T) {
	tpl, err := Parse(Init, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tpl.Execute(&b, map[string]string{"File": "x.mrtr.yaml"}); err == nil {
		t.Error("rendering without Package and SchemaURL succeeded")
	}
}
