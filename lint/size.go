package lint

import (
	"github.com/mrtrgen/mrtrgen/spec"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Worst-case size of a sealed requestState, following the continuation
// encoding the generator emits (see mrtr/binenc): strings and byte strings
// are a uvarint length and the bytes, integers zig-zag varints, numbers 8
// bytes, booleans and enums one small varint, arrays a uvarint count and the
// items, optional values a presence byte. The sealed envelope adds a schema
// hash, workflow id, state and round; the token adds the AEAD header, nonce
// and tag, and base64url.

// unbounded marks a size with no upper limit (a string without maxLength).
const unbounded = -1

const (
	envelopeBytes  = 8 + 16 + 3 + 3 // schema hash, workflow id, state, round
	sealOverhead   = 41             // version, key id, expiry, nonce, tag
	maxIntBytes    = 10
	maxFloatBytes  = 8
	maxRuneBytes   = 4
	presenceBytes  = 1
	referenceBytes = 1 + 16 // a presence byte and a 128-bit reference
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

// fieldSize is the most bytes one field's value can take.
func fieldSize(f *spec.Field) int {
	var n int
	switch f.Type {
	case spec.TypeString:
		if f.MaxLength == nil {
			return unbounded
		}
		n = stringSize(*f.MaxLength)
	case spec.TypeInteger:
		n = maxIntBytes
	case spec.TypeNumber:
		n = maxFloatBytes
	case spec.TypeBoolean:
		n = 1
	case spec.TypeEnum:
		n = uvarintLen(len(f.Values) + 1)
		if f.ValuesFrom != nil {
			// One of the offered values, carried as a string.
			src := f.Source.OptionItems()
			if src == nil || src.MaxLength == nil {
				return unbounded
			}
			return stringSize(*src.MaxLength)
		}
	case spec.TypeOption:
		if f.MaxLength == nil || f.TitleMaxLength == nil {
			return unbounded
		}
		n = stringSize(*f.MaxLength) + stringSize(*f.TitleMaxLength)
	case spec.TypeArray:
		maxItems := f.MaxItems
		if maxItems == nil && f.Items != nil && f.Items.Source != nil {
			// A multi-select of offered values holds at most all of them.
			maxItems = f.Items.Source.MaxItems
		}
		if maxItems == nil || f.Items == nil {
			return unbounded
		}
		item := fieldSize(f.Items)
		if item == unbounded {
			return unbounded
		}
		n = uvarintLen(*maxItems) + *maxItems*item
	}
	return n
}

// stringSize is the most bytes a string of at most n characters takes.
func stringSize(n int) int {
	b := n * maxRuneBytes
	return uvarintLen(b) + b
}

// answerSize is the most bytes a stored answer to q can take.
func answerSize(q *spec.InputRequest) int {
	n := presenceBytes
	switch q.Kind {
	case vocab.Elicit:
		for _, f := range q.Fields {
			n = addSize(n, fieldSize(f))
			if !f.Required {
				n = addSize(n, presenceBytes)
			}
		}
	case vocab.Sample:
		if q.MaxLength == nil {
			return unbounded
		}
		b := *q.MaxLength * maxRuneBytes
		n += uvarintLen(b) + b
	case vocab.Roots:
		n += uvarintLen(q.MaxItems) + q.MaxItems*(uvarintLen(spec.MaxRootURIBytes)+spec.MaxRootURIBytes)
	}
	return n
}

// tokenSizeAt is the longest requestState the workflow can issue while
// waiting in state s: the continuation fields plus every answer that can
// have been given by then (including partial answers of s itself). It
// returns unbounded when a carried value has no limit.
func tokenSizeAt(g *graph, s *spec.State) int {
	t := g.t
	si := g.index[s.Name]
	body := 0
	for _, f := range t.Continuation.Fields {
		body = addSize(body, fieldSize(f))
	}
	for ai, a := range t.States {
		if !a.Interactive() {
			continue
		}
		if a != s && !g.reachFrom(ai).has(si) {
			continue
		}
		for _, q := range a.Requests {
			body = addSize(body, answerSize(q))
		}
		if a.Confirm != nil {
			body = addSize(body, presenceBytes+1)
		}
	}
	if body == unbounded {
		return unbounded
	}
	raw := sealOverhead + envelopeBytes + body
	return (raw*4 + 2) / 3 // base64url without padding
}
