package generator

import (
	"bytes"
	"strings"
)

// commentWidth is the column generated comments wrap at (a tab counts as
// four): wide enough for a sentence naming a long tool, narrow enough for a
// side-by-side diff in code review.
const commentWidth = 100

// wrapComments re-wraps each block of full-line comments that has a line
// longer than commentWidth. Generated doc comments are built from spec names
// and texts of any length, so they are written as one line per sentence and
// wrapped here, once, for the whole file. Blocks that hold directives
// (//go:, //lint:), code (an indented line) or lists are left as they are,
// and so are blocks that already fit. The result stays gofmt-clean: gofmt
// keeps plain comment paragraphs as they are.
func wrapComments(src []byte) []byte {
	lines := bytes.Split(src, []byte("\n"))
	var out [][]byte
	for i := 0; i < len(lines); {
		indent, ok := commentIndent(lines[i])
		if !ok {
			out = append(out, lines[i])
			i++
			continue
		}
		j := i + 1
		for j < len(lines) {
			if ind, ok := commentIndent(lines[j]); !ok || ind != indent {
				break
			}
			j++
		}
		out = append(out, wrapBlock(lines[i:j], indent)...)
		i = j
	}
	return bytes.Join(out, []byte("\n"))
}

// commentIndent reports whether line is a whole-line // comment, and its
// indentation.
func commentIndent(line []byte) (string, bool) {
	t := bytes.TrimLeft(line, "\t ")
	if !bytes.HasPrefix(t, []byte("//")) {
		return "", false
	}
	return string(line[:len(line)-len(t)]), true
}

func columns(line []byte) int {
	n := 0
	for _, c := range string(line) {
		if c == '\t' {
			n += 4
		} else {
			n++
		}
	}
	return n
}

func wrapBlock(block [][]byte, indent string) [][]byte {
	long := false
	for _, l := range block {
		text := strings.TrimPrefix(strings.TrimLeft(string(l), "\t "), "//")
		switch {
		case strings.HasPrefix(text, "go:"), strings.HasPrefix(text, "lint:"), strings.HasPrefix(text, "nolint"),
			strings.HasPrefix(text, "\t"), strings.HasPrefix(text, "  "), strings.HasPrefix(text, " - "),
			strings.HasPrefix(text, " Code generated"), strings.HasPrefix(text, " source:"):
			return block // a directive, code, a list or the header: keep as written
		}
		long = long || columns(l) > commentWidth
	}
	if !long {
		return block
	}
	width := commentWidth - columns([]byte(indent)) - len("// ")
	var out [][]byte
	var words []string
	flush := func() {
		line := ""
		for _, w := range words {
			if line != "" && len(line)+1+len(w) > width {
				out = append(out, []byte(indent+"// "+line))
				line = ""
			}
			if line == "" {
				line = w
			} else {
				line += " " + w
			}
		}
		if line != "" {
			out = append(out, []byte(indent+"// "+line))
		}
		words = words[:0]
	}
	for _, l := range block {
		text := strings.TrimSpace(strings.TrimPrefix(strings.TrimLeft(string(l), "\t "), "//"))
		if text == "" { // a paragraph break
			flush()
			out = append(out, []byte(indent+"//"))
			continue
		}
		words = append(words, strings.Fields(text)...)
	}
	flush()
	return out
}
