// Package jsonkeys finds duplicate object keys in a JSON text.
//
// encoding/json (and every decoder the go-sdk uses) keeps the last of two
// members with the same key, so {"action":"decline","action":"accept"}
// decodes as accepted. A server that acts on a client's JSON must refuse
// such a text instead of guessing which member the client meant: Duplicate
// walks the raw bytes once and names the first repeated key and where it
// is.
package jsonkeys

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Found is a duplicate key: Key (unescaped) repeats an earlier key of the
// object at Path.
type Found struct {
	// Path names the object from the top of the text: "" for the top
	// object itself, ".params.inputResponses" for an object member,
	// "[2]" for an array element; a key that is not an identifier is
	// written as ["some.key"].
	Path string
	Key  string
}

// MaxDepth is the deepest nesting Duplicate follows, as encoding/json's
// limit: a deeper text is refused by the decoder anyway.
const MaxDepth = 10000

// Duplicate returns the first key (in text order) that repeats a key of
// the same object. Keys compare as encoding/json decodes them: escapes
// resolved, invalid UTF-8 replaced by U+FFFD. On a valid JSON text its
// answer is exact; on anything else it never panics, and what it reports is
// unspecified (json.Valid tells the two apart).
func Duplicate(data []byte) (Found, bool) {
	s := scanner{data: data}
	s.stack, s.keys = s.stackBuf[:0], s.keysBuf[:0] // a request's nesting and keys fit: one allocation
	return s.run()
}

// frame is one open object or array.
type frame struct {
	object bool
	index  int    // array: the element being read
	member []byte // object: the key of the member being read
	first  int    // object: where its keys start in scanner.keys
	set    keySet // object: its keys once there are too many to compare one by one
}

// keySet holds the keys of a large object.
type keySet map[string]struct{}

// linearKeys is how many keys of one object are compared one by one
// before they go into a map: most objects of a request have a handful.
const linearKeys = 16

type scanner struct {
	data  []byte
	pos   int
	stack []frame
	keys  [][]byte // the keys of the open objects, each object's from its frame's first

	stackBuf [16]frame
	keysBuf  [48][]byte
}

func (s *scanner) run() (Found, bool) {
	for {
		if !s.skipSpace() {
			return Found{}, false
		}
		c := s.data[s.pos]
		switch c {
		case '{', '[':
			if len(s.stack) >= MaxDepth {
				return Found{}, false
			}
			s.pos++
			s.stack = append(s.stack, frame{object: c == '{', first: len(s.keys)})
			if c == '{' {
				if found, dup := s.key(); dup {
					return found, true
				}
			}
		case '}', ']':
			s.pos++
			if len(s.stack) == 0 {
				return Found{}, false
			}
			top := &s.stack[len(s.stack)-1]
			s.keys = s.keys[:top.first]
			s.stack = s.stack[:len(s.stack)-1]
			if len(s.stack) == 0 {
				return Found{}, false // the text's one value is read
			}
		case ',':
			s.pos++
			if len(s.stack) == 0 {
				return Found{}, false
			}
			top := &s.stack[len(s.stack)-1]
			if !top.object {
				top.index++
				continue
			}
			if found, dup := s.key(); dup {
				return found, true
			}
		case '"':
			if !s.skipString() {
				return Found{}, false
			}
		default: // a number, true, false, null, or something invalid
			s.pos++
			for s.pos < len(s.data) && !delimiter[s.data[s.pos]] {
				s.pos++
			}
		}
		if len(s.stack) == 0 {
			return Found{}, false // a scalar text
		}
	}
}

// key reads the key and the colon of an object member, after '{' or ',',
// and reports the key if the object already has it. At a '}' (an empty
// object) it reads nothing.
func (s *scanner) key() (Found, bool) {
	if !s.skipSpace() || s.data[s.pos] != '"' {
		return Found{}, false
	}
	start := s.pos
	plain := true
	s.pos++
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		if c == '"' {
			break
		}
		if c == '\\' {
			plain = false
			s.pos++
		} else if c >= utf8.RuneSelf {
			plain = false
		}
		s.pos++
	}
	if s.pos >= len(s.data) {
		return Found{}, false
	}
	s.pos++ // the closing quote
	k := s.data[start+1 : s.pos-1]
	if !plain {
		k = canonical(s.data[start:s.pos])
	}
	top := &s.stack[len(s.stack)-1]
	top.member = k
	if s.seen(top, k) {
		return s.found(k), true
	}
	if s.skipSpace() && s.data[s.pos] == ':' {
		s.pos++
	}
	return Found{}, false
}

// seen reports whether the object of top has k, and adds it if not.
func (s *scanner) seen(top *frame, k []byte) bool {
	if top.set != nil {
		if _, ok := top.set[string(k)]; ok {
			return true
		}
		top.set[string(k)] = struct{}{}
		return false
	}
	for _, other := range s.keys[top.first:] {
		if bytes.Equal(other, k) {
			return true
		}
	}
	if len(s.keys)-top.first < linearKeys {
		s.keys = append(s.keys, k)
		return false
	}
	top.set = make(keySet, 2*linearKeys)
	for _, other := range s.keys[top.first:] {
		top.set[string(other)] = struct{}{}
	}
	top.set[string(k)] = struct{}{}
	s.keys = s.keys[:top.first]
	return false
}

// canonical returns a quoted key that has escapes or non-ASCII bytes as
// encoding/json decodes it.
func canonical(quoted []byte) []byte {
	var k string
	if json.Unmarshal(quoted, &k) != nil {
		return quoted // invalid: the text is, too
	}
	return []byte(k)
}

// skipString moves past the string at s.pos; false at the end of data.
func (s *scanner) skipString() bool {
	s.pos++
	for {
		i := bytes.IndexByte(s.data[s.pos:], '"')
		if i < 0 {
			s.pos = len(s.data)
			return false
		}
		end := s.pos + i
		backslashes := 0
		for j := end - 1; j >= s.pos && s.data[j] == '\\'; j-- {
			backslashes++
		}
		s.pos = end + 1
		if backslashes%2 == 0 {
			return true
		}
	}
}

// delimiter marks the bytes that end a number or a literal.
var delimiter = [256]bool{',': true, '}': true, ']': true, ' ': true, '\t': true, '\n': true, '\r': true, '"': true, '{': true, '[': true, ':': true}

// skipSpace moves to the next non-space byte; false at the end of data.
func (s *scanner) skipSpace() bool {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return true
		}
	}
	return false
}

// found names k at the innermost object.
func (s *scanner) found(k []byte) Found {
	var b strings.Builder
	for i := range len(s.stack) - 1 {
		f := &s.stack[i]
		if f.object {
			writeKey(&b, f.member)
		} else {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(f.index))
			b.WriteByte(']')
		}
	}
	return Found{Path: b.String(), Key: string(k)}
}

// writeKey appends .key, or ["key"] for a key that is not an identifier.
func writeKey(b *strings.Builder, k []byte) {
	if identifier(k) {
		b.WriteByte('.')
		b.Write(k)
		return
	}
	b.WriteByte('[')
	b.WriteString(strconv.Quote(string(k)))
	b.WriteByte(']')
}

func identifier(k []byte) bool {
	if len(k) == 0 {
		return false
	}
	for i, c := range k {
		switch {
		case c == '_' || c == '$' || (c|0x20 >= 'a' && c|0x20 <= 'z'):
		case i > 0 && (c >= '0' && c <= '9' || c == '-'):
		default:
			return false
		}
	}
	return true
}
