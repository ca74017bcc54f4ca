package lint

import (
	"cmp"
	"fmt"
	"math"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Worst-case size of a sealed requestState, following the continuation
// encoding the generator emits (envelope version 3, docs/evolution.md):
// each carried value is a tagged entry, key(4) | kind(1) | uvarint length |
// payload, where strings are their bytes, integers zig-zag varints,
// numbers 8 bytes, booleans one byte, enums their value's bytes and lists
// an item kind and each item with its length; answers, continuation fields
// and passed gates are groups of entries. The sealed envelope adds the
// workflow id, the arguments digest, round, the state's name and kind, and
// each request sent with its question digest; the token adds the AEAD
// header, nonce and tag, and base64url.

// unbounded marks a size with no upper limit (a string without maxLength).
const unbounded = -1

const (
	envelopeBytes = 1 + 16 + 32 + 3 + 1 + 1 + 1 // version, workflow id, arguments digest, round, state kind, sent count, mode
	digestBytes   = 8                           // per sent request
	sealOverhead  = 41                          // version, key id, expiry, nonce, tag
	maxIntBytes   = 10
	maxFloatBytes = 8
	maxRuneBytes  = 4
)

func uvarintLen(n int) int {
	l := 1
	for n >= 0x80 {
		n >>= 7
		l++
	}
	return l
}

func addSize(a, b int) int {
	if a == unbounded || b == unbounded {
		return unbounded
	}
	return a + b
}

// entrySize is the size of a tagged entry whose payload takes at most p
// bytes.
func entrySize(p int) int {
	if p == unbounded {
		return unbounded
	}
	return 4 + 1 + uvarintLen(p) + p
}

// stringSize is a length-prefixed string of at most n bytes.
func stringSize(n int) int { return uvarintLen(n) + n }

// runeBytes is the most bytes one character of f's strings takes in
// UTF-8, by what its constraints allow.
func runeBytes(f *spec.Field) int { return charBytes(f.Pattern, f.Format) }

// charBytes is the most bytes one character of a string under pattern and
// format takes in UTF-8: the widest character the pattern admits (1 for
// '[0-9]{1,12}', 2 for '[a-zà-ÿ]+', 4 where "." or a negated class admits
// any), 1 under the ASCII-only formats date and date-time, else 4.
// Formats checked by parsers that accept UTF-8 (email by net/mail, uri by
// net/url) count four.
func charBytes(pattern, format string) int {
	if format == "date" || format == "date-time" {
		return 1
	}
	if pattern != "" {
		if re, err := syntax.Parse(pattern, syntax.Perl); err == nil {
			return min(maxRuneBytes, max(1, widestRune(re)))
		}
	}
	return maxRuneBytes
}

// dateBytes is the length of every date time.DateOnly parses.
const dateBytes = len("2006-01-02")

// stringBytes is the most bytes a string of f can take.
func stringBytes(f *spec.Field) int { return boundedBytes(f.MaxLength, f.Pattern, f.Format) }

// titleBytes is the most bytes the title of option f can take.
func titleBytes(f *spec.Field) int { return boundedBytes(f.TitleMaxLength, f.TitlePattern, "") }

// boundedBytes is the most bytes a string can take under its constraints:
// maxLength characters of the width they allow, or less where the pattern
// bounds the whole string (dep_[0-9a-f]{8} is 12 bytes, whatever maxLength
// says) or it is a date; unbounded when nothing bounds it.
func boundedBytes(maxLength *int, pattern, format string) int {
	n := unbounded
	if maxLength != nil {
		n = *maxLength * charBytes(pattern, format)
	}
	bound := func(m int) {
		if m != unbounded && (n == unbounded || m < n) {
			n = m
		}
	}
	if format == "date" {
		bound(dateBytes)
	}
	if pattern != "" {
		if re, err := syntax.Parse(pattern, syntax.Perl); err == nil {
			bound(longestMatch(re))
		}
	}
	return n
}

// runeLen is the UTF-8 length of r (an invalid rune is written as
// U+FFFD, three bytes).
func runeLen(r rune) int {
	if n := utf8.RuneLen(r); n > 0 {
		return n
	}
	return 3
}

// foldedLen is the most bytes r takes among the runes a case-folded
// literal matches (a (?i) k matches the Kelvin sign, three bytes).
func foldedLen(r rune, fold bool) int {
	n := runeLen(r)
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			n = max(n, runeLen(f))
		}
	}
	return n
}

// widestRune is the most UTF-8 bytes one character matched by re takes
// (0 when re matches no character).
func widestRune(re *syntax.Regexp) int {
	w := 0
	switch re.Op {
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return maxRuneBytes
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			w = max(w, foldedLen(r, re.Flags&syntax.FoldCase != 0))
		}
	case syntax.OpCharClass:
		// Pairs of inclusive ranges, folds and negation already applied:
		// the last bound is the highest character.
		if n := len(re.Rune); n > 0 {
			w = runeLen(re.Rune[n-1])
		}
	}
	for _, sub := range re.Sub {
		w = max(w, widestRune(sub))
	}
	return w
}

// longestMatch is the most bytes a string the (anchored) pattern matches
// can take, or unbounded under a *, a + or an open repetition.
func longestMatch(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += foldedLen(r, re.Flags&syntax.FoldCase != 0)
		}
		return n
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL, syntax.OpCharClass:
		return widestRune(re)
	case syntax.OpCapture, syntax.OpQuest:
		return longestMatch(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		if longestMatch(re.Sub[0]) == 0 {
			return 0
		}
		return unbounded
	case syntax.OpRepeat:
		sub := longestMatch(re.Sub[0])
		switch {
		case sub == 0:
			return 0
		case sub == unbounded || re.Max < 0:
			return unbounded
		}
		return re.Max * sub
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n = addSize(n, longestMatch(sub))
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			m := longestMatch(sub)
			if m == unbounded {
				return unbounded
			}
			n = max(n, m)
		}
		return n
	}
	return 0 // empty matches, anchors and word boundaries take no bytes
}

// payloadSize is the most bytes the payload of one field's entry can take.
func payloadSize(f *spec.Field) int {
	switch f.Type {
	case spec.TypeString:
		return stringBytes(f)
	case spec.TypeInteger:
		return maxIntBytes
	case spec.TypeNumber:
		return maxFloatBytes
	case spec.TypeBoolean:
		return 1
	case spec.TypeEnum:
		if f.ValuesFrom != nil {
			// One of the offered values, carried by its value.
			src := f.Source.OptionItems()
			if src == nil {
				return unbounded
			}
			return stringBytes(src)
		}
		n := 0
		for _, v := range f.Values {
			n = max(n, len(v.Value))
		}
		return n
	case spec.TypeOption:
		// A group of two string entries: the value and the title.
		value, title := stringBytes(f), titleBytes(f)
		if value == unbounded || title == unbounded {
			return unbounded
		}
		return entrySize(value) + entrySize(title)
	case spec.TypeArray:
		maxItems := f.MaxItems
		if maxItems == nil && f.Items != nil && f.Items.Source != nil {
			// A multi-select of offered values holds at most all of them.
			maxItems = f.Items.Source.MaxItems
		}
		if maxItems == nil || f.Items == nil {
			return unbounded
		}
		item := payloadSize(f.Items)
		if item == unbounded {
			return unbounded
		}
		return 1 + *maxItems*stringSize(item)
	}
	return 0
}

// fieldSize is the most bytes one field's entry can take.
func fieldSize(f *spec.Field) int { return entrySize(payloadSize(f)) }

// A cost is what one carried value adds to the worst case: an answer's
// field or a continuation field, named as a reader finds it in the spec.
type cost struct {
	what    string
	bytes   int  // the raw bytes of its entry, or unbounded
	wide    bool // a string counted at 4 bytes a character
	options bool // a list of options: each title counted at titleMaxLength
}

// costs adds the cost of carrying f, named what, to *to.
func costs(to *[]cost, what string, f *spec.Field) {
	options := f.Type == spec.TypeArray && f.Items != nil && f.Items.Type == spec.TypeOption
	*to = append(*to, cost{what: what, bytes: fieldSize(f), wide: wideStrings(f), options: options})
}

// wideStrings reports whether f carries strings counted at 4 bytes a
// character (the hint then says how a pattern or format cuts that).
func wideStrings(f *spec.Field) bool {
	switch f.Type {
	case spec.TypeString:
		return runeBytes(f) == maxRuneBytes
	case spec.TypeOption:
		return runeBytes(f) == maxRuneBytes || charBytes(f.TitlePattern, "") == maxRuneBytes
	case spec.TypeEnum:
		if src := f.Source.OptionItems(); f.ValuesFrom != nil && src != nil {
			return runeBytes(src) == maxRuneBytes
		}
	case spec.TypeArray:
		return f.Items != nil && wideStrings(f.Items)
	}
	return false
}

// answerSize is the most bytes a stored answer to q can take; the cost of
// each of its values is added to *parts.
func answerSize(q *spec.InputRequest, parts *[]cost) int {
	switch q.Kind {
	case vocab.Elicit:
		n := 0
		for _, f := range q.Fields {
			n = addSize(n, fieldSize(f))
			costs(parts, fmt.Sprintf("answer %s.%s", q.Key, f.Name), f)
		}
		return entrySize(n)
	case vocab.Sample:
		n := unbounded
		if q.MaxLength != nil {
			n = entrySize(*q.MaxLength * maxRuneBytes)
		}
		*parts = append(*parts, cost{what: "sampled answer " + q.Key, bytes: n}) // no pattern applies to it
		return n
	case vocab.Roots:
		n := entrySize(1 + q.MaxItems*stringSize(spec.MaxRootURIBytes))
		*parts = append(*parts, cost{what: "roots answer " + q.Key, bytes: n})
		return n
	}
	return 0
}

// tokenSizeAt is the longest requestState the workflow can issue while
// waiting in state s: the continuation fields plus every answer that can
// have been given by then (including partial answers of s itself), every
// gate passed, and the refusals of each check that asks again. It returns
// unbounded when a carried value has no limit, and the cost of each
// carried value, the largest (and the unbounded) first.
func tokenSizeAt(g *graph, s *spec.State) (int, []cost) {
	t := g.t
	si, _ := g.Index(s.Name)
	var parts []cost
	fields := 0
	for _, f := range t.Continuation.Fields {
		fields = addSize(fields, fieldSize(f))
		costs(&parts, "continuation field "+f.Name, f)
	}
	answers, gates := 0, 0
	for ai, a := range t.States {
		if !a.Interactive() {
			continue
		}
		if a != s && !g.reachFrom(ai).Has(si) {
			continue
		}
		for _, q := range a.Requests {
			answers = addSize(answers, answerSize(q, &parts))
		}
		if a.Confirm != nil {
			gates += entrySize(maxIntBytes)
		}
	}
	slices.SortStableFunc(parts, func(a, b cost) int { return cmp.Compare(order(b.bytes), order(a.bytes)) })
	refusals := 0 // per check that asks again (or typed confirmation), the count of refused answers
	for _, c := range t.States {
		if c.CountsRefusals() {
			refusals += entrySize(maxIntBytes)
		}
	}
	body := 0
	for _, group := range []int{fields, answers, gates, refusals} {
		if group != 0 {
			body = addSize(body, entrySize(group))
		}
	}
	if body == unbounded {
		return unbounded, parts
	}
	raw := sealOverhead + envelopeBytes + stringSize(len(s.Name)) + body
	for _, q := range s.Requests {
		raw += stringSize(len(q.Key)) + digestBytes
	}
	if s.Confirm != nil {
		raw += stringSize(len(s.Confirm.Key)) + digestBytes
	}
	return base64Len(raw), parts
}

// order sorts unbounded sizes above every bounded one.
func order(n int) int {
	if n == unbounded {
		return math.MaxInt
	}
	return n
}

// base64Len is the length of n bytes in base64url without padding.
func base64Len(n int) int { return (n*4 + 2) / 3 }

// largest words the costliest parts for a finding: the unbounded ones
// (all of them) when there are any, else the three largest with their
// share of the token.
func largest(parts []cost) string {
	var out []string
	for _, p := range parts {
		if p.bytes == unbounded {
			out = append(out, p.what)
		}
	}
	if len(out) > 0 {
		return strings.Join(out, ", ")
	}
	for _, p := range parts[:min(3, len(parts))] {
		out = append(out, fmt.Sprintf("%s %d bytes", p.what, base64Len(p.bytes)))
	}
	return strings.Join(out, ", ")
}

// anyNamed reports whether one of the parts largest names is one that
// is reports.
func anyNamed(parts []cost, is func(cost) bool) bool {
	for i, p := range parts {
		if is(p) && (p.bytes == unbounded || i < 3) {
			return true
		}
	}
	return false
}

// anyWide reports whether one of the parts largest names is a string
// counted at 4 bytes a character.
func anyWide(parts []cost) bool { return anyNamed(parts, func(p cost) bool { return p.wide }) }

// anyOptions reports whether one of the parts largest names is a list of
// options.
func anyOptions(parts []cost) bool { return anyNamed(parts, func(p cost) bool { return p.options }) }
