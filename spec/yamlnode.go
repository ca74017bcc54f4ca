package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Limits bound the work the loader does on hostile input. The zero value
// means the defaults.
type Limits struct {
	MaxFileBytes int // default 8 MiB
	MaxDepth     int // nesting of mappings and sequences, default 64
	MaxNodes     int // nodes after alias expansion, default 2,000,000
}

func (l Limits) withDefaults() Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = 8 << 20
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = 64
	}
	if l.MaxNodes <= 0 {
		l.MaxNodes = 2_000_000
	}
	return l
}

// parseYAML turns bytes into one expanded YAML document tree: aliases are
// replaced by copies of their anchors (within a node budget), duplicate keys
// and merge keys are rejected, and nesting is bounded. It never panics and
// its work is bounded by the limits whatever the input.
func parseYAML(path string, data []byte, lim Limits) (*yaml.Node, Diagnostics) {
	fail := func(line, col int, rule, msg, hint string) (*yaml.Node, Diagnostics) {
		return nil, Diagnostics{{Pos: Pos{File: path, Line: line, Col: col}, Severity: Error, Rule: rule, Message: msg, Hint: hint}}
	}
	if len(data) > lim.MaxFileBytes {
		// LoadFile reads only one byte past the limit, so the length here
		// is not the file's size: say what is known.
		return fail(0, 0, "input", fmt.Sprintf("file is larger than %d bytes, the limit for a spec", lim.MaxFileBytes),
			"split the spec into several files")
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return fail(1, 1, "input", "file is empty", "start from `mrtrgen init`, or see docs/spec.md")
	}
	if bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) {
		return fail(1, 1, "input", "file is UTF-16, not UTF-8", "save the spec as UTF-8")
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		line, col := lineCol(data, i)
		return fail(line, col, "input", "file contains a NUL byte: binary data, not a YAML spec", "")
	}
	if !utf8.Valid(data) {
		i := firstInvalidUTF8(data)
		line, col := lineCol(data, i)
		return fail(line, col, "input", "file is not valid UTF-8", "save the spec as UTF-8")
	}

	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := safeDecode(dec, &doc); err != nil {
		if errors.Is(err, io.EOF) {
			// Comments and document markers only.
			return fail(1, 1, "input", "file is empty (it holds only comments)", "start from `mrtrgen init`, or see docs/spec.md")
		}
		line, col, msg, hint := yamlErrorPos(data, err)
		if strings.Contains(msg, "exceeded max depth") {
			// yaml.v3's own bound, far above ours.
			return fail(line, col, "input", fmt.Sprintf("nesting deeper than %d levels", lim.MaxDepth), "")
		}
		return fail(line, col, "yaml-syntax", msg, hint)
	}
	var extra yaml.Node
	if err := safeDecode(dec, &extra); err == nil {
		return fail(extra.Line, extra.Column, "yaml-syntax", "more than one YAML document in the file", "keep one spec document per file")
	} else if !errors.Is(err, io.EOF) {
		line, col, msg, hint := yamlErrorPos(data, err)
		return fail(line, col, "yaml-syntax", msg, hint)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return fail(1, 1, "input", "file holds no YAML document", "")
	}
	x := &expander{path: path, lim: lim}
	root := x.expand(doc.Content[0], 0)
	if len(x.diags) > 0 {
		return nil, x.diags
	}
	return root, nil
}

// safeDecode guards against panics inside the YAML parser: hostile input
// must produce an error, never crash the linter.
func safeDecode(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: cannot parse: %v", r)
		}
	}()
	return dec.Decode(n)
}

var yamlLineRE = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// yamlParserProblems are the messages of yaml.v3's parser (as opposed to its
// scanner). For them yaml.v3 prints a 0-based line number (it adds one only
// for scanner errors), so the line it names is one before the problem.
var yamlParserProblems = map[string]bool{
	"did not find expected <document start>": true,
	"did not find expected node content":     true,
	"did not find expected key":              true,
	"did not find expected '-' indicator":    true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
}

// yamlErrorPos turns a yaml.v3 error into a 1-based line, a column (1 unless
// the problem can be pinned down on its line), a message and a hint.
func yamlErrorPos(data []byte, err error) (line, col int, msg, hint string) {
	msg = err.Error()
	line, col = 1, 1
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		msg = m[2]
		if m[1] != "" {
			line, _ = strconv.Atoi(m[1])
			if yamlParserProblems[msg] {
				line++
			}
		}
	}
	lines := bytes.Split(data, []byte("\n"))
	if line < 1 || line > len(lines) {
		line = max(1, min(line, len(lines)))
	}
	text := lines[line-1]
	if strings.Contains(msg, "tab character") {
		// yaml.v3 may name the line before the one indented with a tab.
		for l := line; l <= min(line+2, len(lines)); l++ {
			if bytes.IndexByte(leadingSpace(lines[l-1]), '\t') >= 0 {
				line, text = l, lines[l-1]
				break
			}
		}
	}
	switch {
	case strings.Contains(msg, "tab character") || msg == "found character that cannot start any token" && bytes.IndexByte(text, '\t') >= 0:
		if i := bytes.IndexByte(text, '\t'); i >= 0 {
			col = utf8.RuneCount(text[:i]) + 1
		}
		hint = "indent with spaces: YAML does not allow tabs in indentation"
	case strings.HasPrefix(msg, "unknown anchor"):
		// yaml.v3 gives no line for this one: find the alias.
		if q := reQuoted.FindStringSubmatch(msg); q != nil {
			if i := bytes.Index(data, []byte("*"+q[1])); i >= 0 {
				line, col = lineCol(data, i)
			}
		}
		hint = "define the anchor (&name) before the alias (*name) that uses it"
	case strings.Contains(msg, "could not find expected ':'") && len(text) > 1024:
		hint = "YAML keys are at most 1024 characters"
	case strings.Contains(msg, "could not find expected ':'"), strings.Contains(msg, "exceeded max depth"):
		// Every prefix that ends in a key fails with the first, and the
		// second is not a syntax error: no search.
	default:
		from := line
		if yamlParserProblems[msg] {
			from-- // the line yaml.v3 named
		}
		if l, c, ok := reproduceYAMLError(data, from, msg); ok {
			line, col = l, c
		}
		if yamlIndentProblems[msg] {
			if l, c, what, fix, ok := indentProblem(data, line); ok {
				line, col, msg, hint = l, c, what, fix+" (the YAML parser: "+msg+")"
			}
		}
	}
	return line, col, msg, hint
}

// yamlIndentProblems are the messages yaml.v3 gives for a line indented
// wrong, saying nothing of indentation: indentProblem says what is wrong.
var yamlIndentProblems = map[string]bool{
	"did not find expected key":                              true,
	"did not find expected '-' indicator":                    true,
	"mapping values are not allowed in this context":         true,
	"block sequence entries are not allowed in this context": true,
}

// leadingSpace is the blanks (spaces and tabs) that start line.
func leadingSpace(line []byte) []byte {
	return line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
}

// yamlSearchBudget bounds the bytes reproduceYAMLError parses in all.
const yamlSearchBudget = 4 << 20

// reproduceYAMLError finds where a syntax error is: yaml.v3 keeps the
// column of a problem to itself and names a line that is sometimes the
// one before (see yamlParserProblems) or the line where the enclosing
// construct starts. The parser fails on the token it cannot accept, and
// fails the same way on every prefix of the file that ends past that
// token's first character, so the shortest prefix that gives the same
// message ends at the problem. The search starts at line (where yaml.v3
// saw the problem or its context begin) and stops at a budget of bytes
// parsed; ok is false when it finds nothing within it.
func reproduceYAMLError(data []byte, line int, msg string) (int, int, bool) {
	start := 0
	for l := 1; l < line && start < len(data); l++ {
		i := bytes.IndexByte(data[start:], '\n')
		if i < 0 {
			break
		}
		start += i + 1
	}
	spent := 0
	for k := start + 1; k <= len(data); k++ {
		if spent += k; spent > yamlSearchBudget {
			return 0, 0, false
		}
		if !utf8.RuneStart(data[k-1]) || k < len(data) && !utf8.RuneStart(data[k]) {
			continue // cut between the bytes of one character
		}
		var n yaml.Node
		err := safeDecode(yaml.NewDecoder(bytes.NewReader(data[:k])), &n)
		if err == nil {
			continue
		}
		m := yamlLineRE.FindStringSubmatch(err.Error())
		if m == nil || m[2] != msg {
			continue
		}
		at := k - 1
		if strings.HasPrefix(msg, "did not find expected ',' or ") {
			// A flow collection left open: point at its opening bracket.
			open := byte('[')
			if strings.HasSuffix(msg, "'}'") {
				open = '{'
			}
			if i := bytes.LastIndexByte(data[:at], open); i >= 0 {
				at = i
			}
		}
		l, c := lineCol(data, at)
		return l, c, true
	}
	return 0, 0, false
}

type expander struct {
	path    string
	lim     Limits
	nodes   int
	aliases int // aliases expanded so far
	diags   Diagnostics
	// active holds anchors being expanded, to stop self-referencing aliases.
	active []*yaml.Node
}

func (x *expander) errorf(n *yaml.Node, rule, hint, format string, args ...any) {
	x.diags = append(x.diags, Diagnostic{
		Pos: Pos{File: x.path, Line: n.Line, Col: n.Column}, Severity: Error,
		Rule: rule, Message: fmt.Sprintf(format, args...), Hint: hint,
	})
}

// expand returns n with aliases resolved. A subtree without aliases is
// returned as it is (no copy); one with aliases is copied with each alias
// replaced by the expansion of its anchor, so the result may share nodes
// (nothing downstream modifies the tree). It stops at the first limit hit:
// past that point the tree is not worth more work.
func (x *expander) expand(n *yaml.Node, depth int) *yaml.Node {
	if len(x.diags) > 0 || !x.withinLimits(n, depth) {
		return nil
	}
	switch n.Kind {
	case yaml.AliasNode:
		return x.expandAlias(n, depth)
	case yaml.ScalarNode:
		return n
	case yaml.MappingNode, yaml.SequenceNode:
		return x.expandCollection(n, depth)
	}
	x.errorf(n, "yaml-syntax", "", "unexpected YAML node")
	return nil
}

// withinLimits counts n and reports whether the document stays within the
// limits on nodes and depth, and uses core tags only.
func (x *expander) withinLimits(n *yaml.Node, depth int) bool {
	x.nodes++
	switch {
	case x.nodes > x.lim.MaxNodes && x.aliases > 0:
		x.errorf(n, "input", "reduce the use of YAML aliases", "YAML aliases expand to more than %d nodes", x.lim.MaxNodes)
	case x.nodes > x.lim.MaxNodes:
		x.errorf(n, "input", "split the spec into several files", "the document has more than %d nodes", x.lim.MaxNodes)
	case depth > x.lim.MaxDepth:
		x.errorf(n, "input", "", "nesting deeper than %d levels", x.lim.MaxDepth)
	case n.Style&yaml.TaggedStyle != 0 && !coreTags[n.ShortTag()]:
		x.errorf(n, "yaml-syntax", "remove the tag: a spec uses plain YAML values", "YAML tag %s is not supported", n.Tag)
	default:
		return true
	}
	return false
}

// expandAlias is the expansion of the anchor alias n refers to.
func (x *expander) expandAlias(n *yaml.Node, depth int) *yaml.Node {
	if n.Alias == nil {
		x.errorf(n, "yaml-syntax", "", "alias *%s has no anchor", n.Value)
		return nil
	}
	for _, a := range x.active {
		if a == n.Alias {
			x.errorf(n, "yaml-syntax", "", "alias *%s refers to itself", n.Value)
			return nil
		}
	}
	x.aliases++
	x.active = append(x.active, n.Alias)
	c := x.expand(n.Alias, depth)
	x.active = x.active[:len(x.active)-1]
	return c
}

// expandCollection expands the children of a mapping or sequence, copying
// n only when a child changed; a mapping's keys are checked on the way.
func (x *expander) expandCollection(n *yaml.Node, depth int) *yaml.Node {
	var content []*yaml.Node // set once a child differs from the original
	var seen map[string]*yaml.Node
	if n.Kind == yaml.MappingNode {
		seen = make(map[string]*yaml.Node, len(n.Content)/2)
	}
	for i, ch := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 && !x.checkKey(ch, seen) {
			return nil
		}
		cc := x.expand(ch, depth+1)
		if cc == nil {
			return nil
		}
		if cc != ch && content == nil {
			content = make([]*yaml.Node, i, len(n.Content))
			copy(content, n.Content[:i])
		}
		if content != nil {
			content = append(content, cc)
		}
	}
	if content == nil {
		return n
	}
	c := *n
	c.Anchor = ""
	c.Content = content
	return &c
}

// checkKey reports whether ch is a key a spec may use: a scalar (an alias
// of one), not a merge key, not a duplicate of a key in seen, which it is
// added to.
func (x *expander) checkKey(ch *yaml.Node, seen map[string]*yaml.Node) bool {
	key := ch
	if key.Kind == yaml.AliasNode && key.Alias != nil {
		key = key.Alias
	}
	switch prev, dup := seen[key.Value]; {
	case key.Kind != yaml.ScalarNode:
		x.errorf(ch, "yaml-syntax", "use plain names as keys", "mapping key must be a scalar")
	case key.Tag == "!!merge" || key.Value == "<<" && key.Style == 0:
		x.errorf(ch, "yaml-syntax", "repeat the keys, or use an alias for the whole value", "YAML merge keys (<<) are not supported")
	case dup:
		x.errorf(ch, "duplicate-key", "remove one of them", "duplicate key %q (first at %d:%d)", key.Value, prev.Line, prev.Column)
	default:
		seen[key.Value] = ch
		return true
	}
	return false
}

// coreTags are the tags of the YAML 1.2 core schema (and the timestamps
// yaml.v3 resolves plain dates to); any other explicit tag is refused rather
// than silently read as text.
var coreTags = map[string]bool{
	"!!str": true, "!!int": true, "!!float": true, "!!bool": true, "!!null": true,
	"!!map": true, "!!seq": true, "!!timestamp": true,
}

// toJSON converts an expanded tree into the values a JSON Schema validator
// takes. Positions are not recorded here: a locator finds the node a JSON
// pointer names when a failure needs one.
func toJSON(n *yaml.Node) any {
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = toJSON(n.Content[i+1])
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, ch := range n.Content {
			s[i] = toJSON(ch)
		}
		return s
	}
	return scalarValue(n)
}

// locator maps JSON pointers into the expanded tree back to positions.
type locator struct {
	file string
	root *yaml.Node
	// index of each mapping looked into: key → position of the key in
	// Content, built on first use.
	index map[*yaml.Node]map[string]int
}

func newLocator(file string, root *yaml.Node) *locator {
	return &locator{file: file, root: root, index: map[*yaml.Node]map[string]int{}}
}

// find returns the node ptr names and, when its parent is a mapping, the
// node of its key.
func (l *locator) find(ptr string) (val, key *yaml.Node) {
	n := l.root
	if ptr == "" {
		return n, nil
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n.Kind {
		case yaml.MappingNode:
			idx, ok := l.index[n]
			if !ok {
				idx = make(map[string]int, len(n.Content)/2)
				for i := 0; i+1 < len(n.Content); i += 2 {
					idx[n.Content[i].Value] = i
				}
				l.index[n] = idx
			}
			i, ok := idx[tok]
			if !ok {
				return nil, nil
			}
			key, n = n.Content[i], n.Content[i+1]
		case yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil, nil
			}
			key, n = nil, n.Content[i]
		default:
			return nil, nil
		}
	}
	return n, key
}

// at is the position of the value ptr names.
func (l *locator) at(ptr string) (Pos, bool) {
	if n, _ := l.find(ptr); n != nil {
		return Pos{File: l.file, Line: n.Line, Col: n.Column}, true
	}
	return Pos{}, false
}

// keyAt is the position of the key under which ptr's value sits.
func (l *locator) keyAt(ptr string) (Pos, bool) {
	if _, k := l.find(ptr); k != nil {
		return Pos{File: l.file, Line: k.Line, Col: k.Column}, true
	}
	return Pos{}, false
}

// scalarValue gives a scalar its YAML 1.2 core-schema type.
func scalarValue(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		b, err := strconv.ParseBool(strings.ToLower(n.Value))
		if err != nil {
			return n.Value
		}
		return b
	case "!!int":
		if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return json.Number(strconv.FormatInt(i, 10))
		}
		return n.Value
	case "!!float":
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
		return n.Value // .inf, .nan: kept as text, rejected where a number is wanted
	}
	return n.Value
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// lineCol gives the 1-based line and column of a byte offset. Columns count
// characters, as yaml.v3's do (an invalid byte counts as one).
func lineCol(data []byte, off int) (int, int) {
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return line, utf8.RuneCount(data[start:off]) + 1
}

func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return 0
}
