package generator

import (
	"bytes"
	"unicode"
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
//
// It reads src in place and copies only when a block is rewrapped: most
// lines are code, and most comment blocks fit.
func wrapComments(src []byte) []byte {
	var out []byte // src[:done] rewrapped, once a block was
	done := 0
	for i := 0; i < len(src); {
		indent, ok := commentIndent(lineAt(src, i))
		if !ok {
			i = nextLine(src, i)
			continue
		}
		end := i // where the block's last line ends
		for j := i; j < len(src); j = nextLine(src, j) {
			l := lineAt(src, j)
			if ind, ok := commentIndent(l); !ok || !bytes.Equal(ind, indent) {
				break
			}
			end = j + len(l)
		}
		if block := src[i:end]; needsWrap(block) {
			if out == nil {
				out = make([]byte, 0, len(src)+len(src)/8)
			}
			out = append(out, src[done:i]...)
			out = wrapBlock(out, block, indent)
			done = end
		}
		i = nextLine(src, end)
	}
	if out == nil {
		return src
	}
	return append(out, src[done:]...)
}

// lineAt is the line starting at offset i of src, without its newline.
func lineAt(src []byte, i int) []byte {
	if n := bytes.IndexByte(src[i:], '\n'); n >= 0 {
		return src[i : i+n]
	}
	return src[i:]
}

// nextLine is the offset of the line after the one at offset i.
func nextLine(src []byte, i int) int {
	return min(i+len(lineAt(src, i))+1, len(src))
}

// commentIndent reports whether line is a whole-line // comment, and its
// indentation.
func commentIndent(line []byte) ([]byte, bool) {
	t := bytes.TrimLeft(line, "\t ")
	if !bytes.HasPrefix(t, []byte("//")) {
		return nil, false
	}
	return line[:len(line)-len(t)], true
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

// commentText is a comment line's text after the //.
func commentText(line []byte) []byte {
	return bytes.TrimPrefix(bytes.TrimLeft(line, "\t "), []byte("//"))
}

// keptAsWritten are the starts of comment text that keep a block as it is:
// a directive, code, a list or the header.
var keptAsWritten = [][]byte{
	[]byte("go:"), []byte("lint:"), []byte("nolint"), []byte("\t"), []byte("  "), []byte(" - "),
	[]byte(" Code generated"), []byte(" source:"),
}

// needsWrap reports whether a block of comment lines (joined by newlines)
// has a line longer than commentWidth and none that keeps it as written.
func needsWrap(block []byte) bool {
	long := false
	for len(block) > 0 {
		l, rest, _ := bytes.Cut(block, []byte("\n"))
		block = rest
		text := commentText(l)
		for _, p := range keptAsWritten {
			if bytes.HasPrefix(text, p) {
				return false
			}
		}
		long = long || columns(l) > commentWidth
	}
	return long
}

// wrapBlock appends to dst the words of block's comment lines refilled to
// commentWidth, each line starting with indent; an empty comment line is a
// paragraph break, kept.
func wrapBlock(dst, block, indent []byte) []byte {
	width := commentWidth - columns(indent) - len("// ")
	first := true
	startLine := func() {
		if !first {
			dst = append(dst, '\n')
		}
		first = false
		dst = append(dst, indent...)
	}
	open := 0 // length of the text of the line being filled; 0: none is
	for len(block) > 0 {
		l, rest, _ := bytes.Cut(block, []byte("\n"))
		block = rest
		text := bytes.TrimSpace(commentText(l))
		if len(text) == 0 { // a paragraph break
			startLine()
			dst = append(dst, "//"...)
			open = 0
			continue
		}
		for len(text) > 0 {
			w := text
			if n := bytes.IndexFunc(text, unicode.IsSpace); n >= 0 {
				w = text[:n]
			}
			text = bytes.TrimLeftFunc(text[len(w):], unicode.IsSpace)
			if open > 0 && open+1+len(w) > width {
				open = 0
			}
			if open == 0 {
				startLine()
				dst = append(dst, "// "...)
				open = len(w)
			} else {
				dst = append(dst, ' ')
				open += 1 + len(w)
			}
			dst = append(dst, w...)
		}
	}
	return dst
}
