package lint

import (
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

// payloadSize is the most bytes the payload of one field's entry can take.
func payloadSize(f *spec.Field) int {
	switch f.Type {
	case spec.TypeString:
		if f.MaxLength == nil {
			return unbounded
		}
		return *f.MaxLength * maxRuneBytes
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
			if src == nil || src.MaxLength == nil {
				return unbounded
			}
			return *src.MaxLength * maxRuneBytes
		}
		n := 0
		for _, v := range f.Values {
			n = max(n, len(v.Value))
		}
		return n
	case spec.TypeOption:
		// A group of two string entries: the value and the title.
		if f.MaxLength == nil || f.TitleMaxLength == nil {
			return unbounded
		}
		return entrySize(*f.MaxLength*maxRuneBytes) + entrySize(*f.TitleMaxLength*maxRuneBytes)
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

// answerSize is the most bytes a stored answer to q can take.
func answerSize(q *spec.InputRequest) int {
	switch q.Kind {
	case vocab.Elicit:
		n := 0
		for _, f := range q.Fields {
			n = addSize(n, fieldSize(f))
		}
		return entrySize(n)
	case vocab.Sample:
		if q.MaxLength == nil {
			return unbounded
		}
		return entrySize(*q.MaxLength * maxRuneBytes)
	case vocab.Roots:
		return entrySize(1 + q.MaxItems*stringSize(spec.MaxRootURIBytes))
	}
	return 0
}

// tokenSizeAt is the longest requestState the workflow can issue while
// waiting in state s: the continuation fields plus every answer that can
// have been given by then (including partial answers of s itself), every
// gate passed, and the refusals of each check that asks again. It returns
// unbounded when a carried value has no limit.
func tokenSizeAt(g *graph, s *spec.State) int {
	t := g.t
	si, _ := g.Index(s.Name)
	fields := 0
	for _, f := range t.Continuation.Fields {
		fields = addSize(fields, fieldSize(f))
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
			answers = addSize(answers, answerSize(q))
		}
		if a.Confirm != nil {
			gates += entrySize(maxIntBytes)
		}
	}
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
		return unbounded
	}
	raw := sealOverhead + envelopeBytes + stringSize(len(s.Name)) + body
	for _, q := range s.Requests {
		raw += stringSize(len(q.Key)) + digestBytes
	}
	if s.Confirm != nil {
		raw += stringSize(len(s.Confirm.Key)) + digestBytes
	}
	return (raw*4 + 2) / 3 // base64url without padding
}
