package spec

import (
	"strings"
	"testing"
)

// Indentation mistakes point at the line that is indented wrong, with a
// message saying how it is indented and how its siblings are (issue 28
// item 9): yaml.v3 names the line after an over-indented key, or says
// "mapping values are not allowed in this context" without a word about
// indentation.
func TestYAMLIndentationErrors(t *testing.T) {
	const head = "version: 1\npackage: p\ntools:\n  ping:\n"
	for _, tc := range []struct {
		name, src, at, msg, hint string
	}{
		{
			name: "first key over-indented",
			src:  head + "     description: x\n    initial: done\n    states:\n      done: {terminal: success, message: ok}\n",
			at:   "5:6", msg: "this line is indented 5 spaces, its siblings 4 (`initial` on line 6)",
			hint: "indent it 4 spaces, like its siblings",
		},
		{
			name: "key under-indented",
			src:  head + "    description: x\n   initial: done\n    states:\n      done: {terminal: success, message: ok}\n",
			at:   "6:4", msg: "this line is indented 3 spaces, its siblings 4 (`description` on line 5)",
			hint: "indent it 4 spaces, like its siblings, or 2 to put it beside `ping` (line 4)",
		},
		{
			name: "key under-indented after a block scalar",
			src:  head + "    states:\n      done:\n        terminal: success\n        message: >\n          long\n          text\n       x: y\n",
			at:   "11:8", msg: "this line is indented 7 spaces, its siblings 8 (`message` on line 8)",
			hint: "indent it 8 spaces",
		},
		{
			name: "key over-indented after a value",
			src:  head + "    description: x\n      initial: done\n",
			at:   "6:7", msg: "this line is indented 6 spaces, more than `description` on line 5 (4), so it reads as more of that key's value",
			hint: "indent it 4 spaces, beside `description`",
		},
		{
			name: "key under-indented after a value spread over lines",
			src:  head + "    description: a long\n      text goes on\n     initial: done\n",
			at:   "7:6", msg: "this line is indented 5 spaces, more than `description` on line 5 (4), so it reads as more of that key's value",
			hint: "indent it 4 spaces, beside `description`",
		},
		{
			name: "value continued under-indented",
			src:  head + "    description: Provide the reason for closing\n   ticket {ticketId}.\n    initial: done\n",
			at:   "6:4", msg: "this line is indented 3 spaces, no more than `description` on line 5 (4), so it does not continue that key's value",
			hint: "indent it at least 5 spaces to continue the value of `description`",
		},
		{
			name: "key over-indented after a flow mapping",
			src:  head + "    arguments:\n      a: {type: string}\n       b: {type: string}\n",
			at:   "7:8", msg: "more than `a` on line 6 (6), so it reads as more of that key's value",
			hint: "indent it 6 spaces, beside `a`",
		},
		{
			name: "two keys of one mapping disagree",
			src:  head + "    states:\n      done:\n         terminal: success\n        message: ok\n",
			at:   "8:9", msg: "this line is indented 8 spaces, `terminal` on line 7, in the same block, 9",
			hint: "indent the keys of one mapping alike: 8 or 9 spaces",
		},
		{
			name: "tab",
			src:  head + "    states:\n      done:\n        terminal: success\n\tmessage: ok\n",
			at:   "8:1", msg: "tab character",
			hint: "indent with spaces",
		},
		{
			name: "list item among keys",
			src:  head + "    states:\n      done:\n        terminal: success\n      - message: ok\n",
			at:   "8:7", msg: "this line starts a list item, but the lines at its indentation (6 spaces) are keys of a mapping (`done` on line 6)",
			hint: "remove the `- `",
		},
		{
			name: "list item less indented than the items above",
			src:  head + "    arguments:\n      a:\n        type: enum\n        values:\n          - x\n        - y\n",
			at:   "10:9", msg: "this line starts a list item, but the lines at its indentation (8 spaces) are keys of a mapping (`values` on line 8)",
			hint: "indent it 10 spaces, like the items above it (line 9)",
		},
		{
			name: "key among list items",
			src:  head + "    arguments:\n      a:\n        type: enum\n        values:\n          - x\n          - y\n          required: true\n",
			at:   "11:11", msg: "this line is a key (`required`) at the indentation of the list items above it (line 10)",
			hint: "indent it 8 spaces, beside `values` (line 8)",
		},
		{
			name: "key between a list and its key",
			src:  head + "    arguments:\n      a:\n        type: enum\n        values:\n          - x\n          - y\n         required: true\n",
			at:   "11:10", msg: "this line is indented 9 spaces, between `values` (8, line 8) and the items of its list (10)",
			hint: "indent it 8 spaces, beside `values`",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ds := Parse("s.mrtr.yaml", []byte(tc.src), Options{})
			var got []Diagnostic
			for _, d := range ds {
				if d.Rule == "yaml-syntax" {
					got = append(got, d)
				}
			}
			if len(got) != 1 {
				t.Fatalf("yaml-syntax findings: %v\n%s", ds, tc.src)
			}
			d := got[0]
			if d.Pos.String() != "s.mrtr.yaml:"+tc.at || !strings.Contains(d.Message, tc.msg) || !strings.Contains(d.Hint, tc.hint) {
				t.Errorf("got %s\n  hint: %s\nwant s.mrtr.yaml:%s: ...%s...\n  hint: ...%s...\n%s", d, d.Hint, tc.at, tc.msg, tc.hint, tc.src)
			}
		})
	}
}
