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
		return fail(0, 0, "input", fmt.Sprintf("file is %d bytes, over the %d-byte limit for a spec", len(data), lim.MaxFileBytes),
			"split the spec into several files")
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return fail(1, 1, "input", "file is empty", "start from `mrtrgen init`, or see docs/spec.md")
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
		line, msg := yamlErrorLine(err)
		return fail(line, 1, "yaml-syntax", msg, "")
	}
	var extra yaml.Node
	if err := safeDecode(dec, &extra); err == nil {
		return fail(extra.Line, extra.Column, "yaml-syntax", "more than one YAML document in the file", "keep one spec document per file")
	} else if !errors.Is(err, io.EOF) {
		line, msg := yamlErrorLine(err)
		return fail(line, 1, "yaml-syntax", msg, "")
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

// yamlErrorLine extracts the line number yaml.v3 puts in its messages.
func yamlErrorLine(err error) (int, string) {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if line == 0 {
			line = 1
		}
		return line, m[2]
	}
	return 1, msg
}

type expander struct {
	path  string
	lim   Limits
	nodes int
	diags Diagnostics
	// active holds anchors being expanded, to stop self-referencing aliases.
	active []*yaml.Node
}

func (x *expander) errorf(n *yaml.Node, rule, hint, format string, args ...any) {
	x.diags = append(x.diags, Diagnostic{
		Pos: Pos{File: x.path, Line: n.Line, Col: n.Column}, Severity: Error,
		Rule: rule, Message: fmt.Sprintf(format, args...), Hint: hint,
	})
}

// expand copies n with aliases resolved. It stops at the first limit hit:
// past that point the tree is not worth more work.
func (x *expander) expand(n *yaml.Node, depth int) *yaml.Node {
	if len(x.diags) > 0 {
		return nil
	}
	x.nodes++
	if x.nodes > x.lim.MaxNodes {
		x.errorf(n, "input", "reduce the use of YAML aliases", "YAML aliases expand to more than %d nodes", x.lim.MaxNodes)
		return nil
	}
	if depth > x.lim.MaxDepth {
		x.errorf(n, "input", "", "nesting deeper than %d levels", x.lim.MaxDepth)
		return nil
	}
	switch n.Kind {
	case yaml.AliasNode:
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
		x.active = append(x.active, n.Alias)
		c := x.expand(n.Alias, depth)
		x.active = x.active[:len(x.active)-1]
		return c
	case yaml.ScalarNode:
		c := *n
		c.Anchor = ""
		return &c
	case yaml.MappingNode, yaml.SequenceNode:
		c := *n
		c.Anchor = ""
		c.Content = make([]*yaml.Node, 0, len(n.Content))
		var seen map[string]*yaml.Node
		if n.Kind == yaml.MappingNode {
			seen = make(map[string]*yaml.Node, len(n.Content)/2)
		}
		for i, ch := range n.Content {
			if n.Kind == yaml.MappingNode && i%2 == 0 {
				key := ch
				if key.Kind == yaml.AliasNode && key.Alias != nil {
					key = key.Alias
				}
				if key.Kind != yaml.ScalarNode {
					x.errorf(ch, "yaml-syntax", "use plain names as keys", "mapping key must be a scalar")
					return nil
				}
				if key.Tag == "!!merge" || key.Value == "<<" && key.Style == 0 {
					x.errorf(ch, "yaml-syntax", "repeat the keys, or use an alias for the whole value", "YAML merge keys (<<) are not supported")
					return nil
				}
				if prev, dup := seen[key.Value]; dup {
					x.errorf(ch, "duplicate-key", "remove one of them", "duplicate key %q (first at line %d)", key.Value, prev.Line)
					return nil
				}
				seen[key.Value] = ch
			}
			cc := x.expand(ch, depth+1)
			if cc == nil {
				return nil
			}
			c.Content = append(c.Content, cc)
		}
		return &c
	}
	x.errorf(n, "yaml-syntax", "", "unexpected YAML node")
	return nil
}

// toJSON converts an expanded tree into the values a JSON Schema validator
// takes, recording where each JSON pointer came from (and where each
// object key sits, under pointer + "#key").
func toJSON(n *yaml.Node, ptr string, pos map[string]Pos, file string) any {
	pos[ptr] = Pos{File: file, Line: n.Line, Col: n.Column}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			child := ptr + "/" + escapePointer(k.Value)
			pos[child+"#key"] = Pos{File: file, Line: k.Line, Col: k.Column}
			m[k.Value] = toJSON(v, child, pos, file)
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, ch := range n.Content {
			s[i] = toJSON(ch, ptr+"/"+strconv.Itoa(i), pos, file)
		}
		return s
	}
	return scalarValue(n)
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

func lineCol(data []byte, off int) (int, int) {
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
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
