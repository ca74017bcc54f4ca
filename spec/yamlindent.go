package spec

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// Indentation mistakes are the YAML errors people make most, and yaml.v3
// reports them badly: "did not find expected key" on the line after an
// over-indented key, "mapping values are not allowed in this context" with
// no word about indentation. indentProblem looks at the lines around the
// line the parser stopped at, as a reader would, and says which line is
// indented wrong and what its siblings are indented.

// yline is a line of YAML that holds content: not blank, not only a
// comment, not inside a block scalar or a flow collection spread over
// lines.
type yline struct {
	num    int    // 1-based
	indent int    // spaces before its first character
	dash   bool   // a sequence item: "- ..."
	key    string // the mapping key it starts, after the "- " of an item too
	keyCol int    // 0-based column of key (or of what follows "- ")
	value  string // what follows "key:" on the line, without a comment
}

// opens reports whether l has nothing after its key or dash: what follows,
// indented more, belongs to it.
func (l *yline) opens() bool {
	if l.key != "" {
		return l.value == "" || strings.HasPrefix(l.value, "&") && !strings.Contains(l.value, " ")
	}
	return l.dash && l.keyCol == l.indent+1
}

// name is how a hint names l.
func (l *yline) name() string {
	if l.key != "" {
		return "`" + l.key + "`"
	}
	return "the item"
}

var yamlKeyRE = regexp.MustCompile(`^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"{\[&*!|>%@` + "`" + `-][^#]*?|-[^\s#][^#]*?)\s*:(?:\s|$)`)

// yamlContentLines splits data into its content lines; a line indented
// with a tab is left out (yaml.v3 says what is wrong with it).
func yamlContentLines(data []byte) []yline {
	var out []yline
	raw := bytes.Split(data, []byte("\n"))
	for i := 0; i < len(raw); i++ {
		s := strings.TrimRight(string(raw[i]), "\r")
		rest := strings.TrimLeft(s, " ")
		indent := len(s) - len(rest)
		if rest == "" || rest[0] == '#' || rest[0] == '\t' || strings.HasPrefix(rest, "---") || strings.HasPrefix(rest, "...") || rest[0] == '%' {
			continue
		}
		l := yline{num: i + 1, indent: indent, keyCol: indent}
		inner := rest
		if inner == "-" || strings.HasPrefix(inner, "- ") {
			l.dash = true
			after := strings.TrimLeft(inner[1:], " ")
			l.keyCol = indent + len(inner) - len(after)
			if after == "" {
				l.keyCol = indent + 1
			}
			inner = after
		}
		value := inner
		if m := yamlKeyRE.FindStringSubmatch(inner); m != nil {
			l.key = strings.Trim(strings.TrimSpace(m[1]), `"'`)
			value = strings.TrimSpace(inner[len(m[0]):])
			if j := strings.Index(value, " #"); j >= 0 {
				value = strings.TrimSpace(value[:j])
			}
			if strings.HasPrefix(value, "#") {
				value = ""
			}
			l.value = value
		}
		if l.key == "" && !l.dash && len(out) > 0 {
			// The next line of a plain value spread over lines, or text
			// that is no key: neither opens a level.
			if p := out[len(out)-1]; !p.opens() && indent > p.keyCol {
				continue
			}
		}
		out = append(out, l)
		// Skip what the value spreads over: a block scalar's text (lines
		// indented more than the line), a flow collection left open.
		switch {
		case strings.HasPrefix(value, "|") || strings.HasPrefix(value, ">"):
			for i+1 < len(raw) {
				next := strings.TrimRight(string(raw[i+1]), "\r")
				t := strings.TrimLeft(next, " ")
				if t != "" && len(next)-len(t) <= indent {
					break
				}
				i++
			}
		case strings.HasPrefix(value, "[") || strings.HasPrefix(value, "{"):
			depth := flowDepth(value)
			for depth > 0 && i+1 < len(raw) {
				i++
				depth += flowDepth(string(raw[i]))
			}
		}
	}
	return out
}

// flowDepth is how many brackets s opens and leaves open, outside quotes.
func flowDepth(s string) int {
	depth := 0
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '[' || r == '{':
			depth++
		case r == ']' || r == '}':
			depth--
		case r == '#':
			return depth
		}
	}
	return depth
}

// ylevel is a level of indentation open at a line: a mapping's keys or a
// sequence's items, the lines seen at it, the first and the last.
type ylevel struct {
	indent      int
	seq         bool
	first, last *yline
	count       int
}

// yamlLevels are the levels open after lines: the outermost first.
func yamlLevels(lines []yline) []*ylevel {
	var st []*ylevel
	for i := range lines {
		l := &lines[i]
		for len(st) > 0 && st[len(st)-1].indent > l.indent {
			st = st[:len(st)-1]
		}
		top := func() *ylevel {
			if len(st) == 0 {
				return nil
			}
			return st[len(st)-1]
		}
		// A key after a sequence written at its key's indentation
		// ("values:\n- a\nrequired: true") closes that sequence.
		if t := top(); t != nil && t.indent == l.indent && t.seq && !l.dash && len(st) > 1 && st[len(st)-2].indent == l.indent {
			st = st[:len(st)-1]
		}
		switch t := top(); {
		case t != nil && t.indent == l.indent && l.dash && !t.seq && t.last.opens():
			// "values:\n- a": a sequence at its key's indentation.
			st = append(st, &ylevel{indent: l.indent, seq: true, first: l, last: l, count: 1})
		case t != nil && t.indent == l.indent:
			t.count++
			t.last = l
		default:
			st = append(st, &ylevel{indent: l.indent, seq: l.dash, first: l, last: l, count: 1})
		}
		if l.dash && l.key != "" {
			st = append(st, &ylevel{indent: l.keyCol, first: l, last: l, count: 1})
		}
	}
	return st
}

// indentProblem explains an indentation mistake at or near line, where the
// YAML parser stopped: the line that is wrong (1-based), its column, what
// is wrong and how to fix it. ok is false when the indentation there looks
// right.
func indentProblem(data []byte, line int) (at, col int, msg, hint string, ok bool) {
	lines := yamlContentLines(data)
	e := -1
	for i := range lines {
		if lines[i].num == line {
			e = i
			break
		}
	}
	if e <= 0 {
		return 0, 0, "", "", false
	}
	cur := &lines[e]
	n := cur.indent
	st := yamlLevels(lines[:e])
	if len(st) == 0 {
		return 0, 0, "", "", false
	}
	top := st[len(st)-1]
	prev := &lines[e-1]
	if e >= 2 && prev.key == "" && !prev.dash {
		// Text without a key after a key with a value, indented no more
		// than that key: it meant to continue the value, and the parser
		// took it (and this line) as more of it.
		if k := &lines[e-2]; k.key != "" && !k.opens() && prev.indent <= k.keyCol {
			return prev.num, prev.indent + 1,
				fmt.Sprintf("this line is indented %d spaces, no more than %s on line %d (%d), so it does not continue that key's value", prev.indent, k.name(), k.num, k.keyCol),
				fmt.Sprintf("indent it at least %d spaces to continue the value of %s, or write the value on one line", k.keyCol+1, k.name()), true
		}
	}
	if n > top.indent {
		if prev.opens() || prev.key == "" || n <= prev.keyCol {
			return 0, 0, "", "", false
		}
		return cur.num, n + 1,
			fmt.Sprintf("this line is indented %d spaces, more than %s on line %d (%d), so it reads as more of that key's value", n, prev.name(), prev.num, prev.keyCol),
			fmt.Sprintf("indent it %d spaces, beside %s: a key with a value on its line holds no keys under it", prev.keyCol, prev.name()), true
	}
	i := len(st) - 1
	for i > 0 && st[i].indent > n {
		i--
	}
	lv := st[i]
	if lv.indent == n {
		return mixedProblem(st, i, cur)
	}
	if i == len(st)-1 || lv.indent > n {
		// Deeper than every level but not under its line, or less
		// indented than all of them (a key of the document).
		return 0, 0, "", "", false
	}
	return betweenProblem(lines, e, lv, st[i+1])
}

// betweenProblem explains line lines[e], indented between its parent's
// level lv and the level upper of the block it seems to be in.
func betweenProblem(lines []yline, e int, lv, upper *ylevel) (at, col int, msg, hint string, ok bool) {
	cur := &lines[e]
	n, f := cur.indent, upper.indent
	if upper.seq && !cur.dash && lv.last.key != "" && !lv.seq {
		// A key after a list, indented less than the list's items: it
		// belongs beside the list's key.
		return cur.num, n + 1,
			fmt.Sprintf("this line is indented %d spaces, between %s (%d, line %d) and the items of its list (%d)", n, lv.last.name(), lv.indent, lv.last.num, f),
			fmt.Sprintf("indent it %d spaces, beside %s, or start it with `- ` (at %d spaces) to make it an item", lv.indent, lv.last.name(), f), true
	}
	// The lines at f before it agree with f; after it, lines at its
	// indentation agree with it, and lines at f after a line with a value
	// at its indentation (so not under it) agree with f.
	votesF, votesN := upper.count, 1
	last := cur
	for _, l := range lines[e+1:] {
		if l.indent <= lv.indent {
			break
		}
		switch l.indent {
		case n:
			votesN++
		case f:
			if !last.opens() {
				votesF++
			}
		}
		if l.indent <= n {
			last = &l
		}
	}
	switch {
	case votesF > votesN:
		beside := ""
		if lv.last != nil && lv.last.key != "" && !lv.seq {
			beside = fmt.Sprintf(", or %d to put it beside %s (line %d)", lv.indent, lv.last.name(), lv.last.num)
		}
		return cur.num, n + 1,
			fmt.Sprintf("this line is indented %d spaces, its siblings %d (%s on line %d)", n, f, upper.last.name(), upper.last.num),
			fmt.Sprintf("indent it %d spaces, like its siblings%s", f, beside), true
	case votesN > votesF && upper.count == 1:
		first := upper.first
		return first.num, f + 1,
			fmt.Sprintf("this line is indented %d spaces, its siblings %d (%s on line %d)", f, n, cur.name(), cur.num),
			fmt.Sprintf("indent it %d spaces, like its siblings: the first key of a mapping sets the indentation of the others", n), true
	}
	return cur.num, n + 1,
		fmt.Sprintf("this line is indented %d spaces, %s on line %d, in the same block, %d", n, upper.last.name(), upper.last.num, f),
		fmt.Sprintf("indent the keys of one mapping alike: %d or %d spaces", n, f), true
}

// mixedProblem explains a line at the indentation of level st[i] that is
// of the other kind: an item among keys, or a key among items.
func mixedProblem(st []*ylevel, i int, cur *yline) (at, col int, msg, hint string, ok bool) {
	lv := st[i]
	n := cur.indent
	switch {
	case cur.dash && !lv.seq:
		hint = "remove the `- `, or indent the list under the key it belongs to"
		for _, d := range st[i+1:] {
			if d.seq {
				hint = fmt.Sprintf("indent it %d spaces, like the items above it (line %d)", d.indent, d.last.num)
				break
			}
		}
		return cur.num, n + 1,
			fmt.Sprintf("this line starts a list item, but the lines at its indentation (%d spaces) are keys of a mapping (%s on line %d)", n, lv.last.name(), lv.last.num),
			hint, true
	case !cur.dash && lv.seq:
		hint = "start it with `- ` to make it an item, or indent it under an item"
		if i > 0 && !st[i-1].seq && st[i-1].last.key != "" {
			p := st[i-1]
			hint = fmt.Sprintf("indent it %d spaces, beside %s (line %d), or start it with `- ` to make it an item", p.indent, p.last.name(), p.last.num)
		}
		what := "a key"
		if cur.key != "" {
			what = "a key (`" + cur.key + "`)"
		}
		return cur.num, n + 1,
			fmt.Sprintf("this line is %s at the indentation of the list items above it (line %d)", what, lv.last.num),
			hint, true
	}
	return 0, 0, "", "", false
}
