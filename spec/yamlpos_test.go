package spec

import (
	"strings"
	"testing"
)

// YAML syntax errors name the line and column of the problem, not column 1
// of a line near it (issue 16 item 7): yaml.v3 reports no column, so the
// loader finds it (reproduceYAMLError).
func TestYAMLSyntaxErrorColumns(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"mapping in a plain value", "version: 1\npackage: p\ndescription: a: b\n", "3:15"},
		{"unterminated quote", "version: 1\npackage: p\ndescription: \"never closed\ntools: {}\n", "3:14"},
		{"key indented less than its siblings", "version: 1\ntools:\n  ping:\n    description: x\n   initial: done\n", "5:4"},
		{"flow sequence never closed", "version: 1\npackage: p\noutput: [gen\n", "3:9"},
		{"flow mapping never closed", "version: 1\ntools: {ping: 1\n", "2:8"},
		{"reserved indicator", "version: 1\npackage: @p\n", "2:10"},
		{"text after a quoted scalar", "version: 1\npackage: 'p' q\n", "2:14"},
		{"a sequence entry in a mapping", "version: 1\npackage: p\n- tools\n", "3:1"},
		{"tab indentation", "version: 1\ntools:\n\tping: {}\n", "3:1"},
	} {
		_, ds := Parse("s.mrtr.yaml", []byte(tc.src), Options{})
		var got []string
		for _, d := range ds {
			if d.Rule == "yaml-syntax" {
				got = append(got, d.Pos.String())
			}
		}
		if len(got) != 1 || got[0] != "s.mrtr.yaml:"+tc.want {
			t.Errorf("%s: yaml-syntax at %v, want s.mrtr.yaml:%s\n%s", tc.name, got, tc.want, strings.TrimSpace(tc.src))
		}
	}
}
