package mrtr

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// A token pins each question it was sent with (envelope v3): an answer
// counts only while the question this build would ask is the one the
// client was shown. What "the one" means is docs/evolution.md's rule, the
// same as mrtrgen breaking's:
//
//   - a form question of an ask is pinned by its text (pinnedDigest: key,
//     kind, mode and the message as rendered, with the values it shows).
//     Its form (fields, types, constraints, enum values, titles) is not
//     pinned: the answer is validated against the form as this build asks
//     it, so an answer valid there counts across a change breaking calls
//     compatible (an enum value appended, an optional field added), in
//     both directions of a rolling deploy, and one this build refuses (a
//     value a narrowing removed) is asked again with the problem;
//   - every other question (a confirmation gate, a URL, a sampling
//     prompt, a roots request) is pinned by everything it sends
//     (questionDigest): what a gate confirms is consent, not a value to
//     validate again.
//
// Tokens minted by builds before the form pin carry questionDigest for
// every question, which pinMatches accepts too: an unchanged question
// pending across that deploy still takes its answer.

// pinnedDigest is the digest a token carries for question p of a state of
// kind state.
func pinnedDigest(state vocab.StateKind, p mrtrimpl.Pending) uint64 {
	if d, ok := formTextDigest(state, p); ok {
		return d
	}
	return questionDigest(p)
}

// pinMatches reports whether a token's digest for question p pins the
// question this build asks now: its pinnedDigest, or, from a build before
// the form pin, its questionDigest.
func pinMatches(state vocab.StateKind, p mrtrimpl.Pending, carried uint64) bool {
	d, ok := formTextDigest(state, p)
	return ok && d == carried || questionDigest(p) == carried
}

// formTextDigest is the pin of a form question of an ask: the SHA-256 of a
// label no questionDigest input starts with, the key, the kind, the mode
// and the message (false for any other question).
func formTextDigest(state vocab.StateKind, p mrtrimpl.Pending) (uint64, bool) {
	ep, ok := p.Params.(*mcp.ElicitParams)
	if state != vocab.StateAsk || p.Kind != vocab.Elicit || !ok || ep == nil {
		return 0, false
	}
	buf := digestBuffers.Get().(*[]byte)
	b := append((*buf)[:0], formPinLabel...) //nolint:gocritic // b reuses the pooled buffer's array; *buf takes it back below
	b = append(b, p.Key...)
	b = append(b, 0, byte(p.Kind), 0)
	b = append(b, ep.Mode...)
	b = append(b, 0)
	b = append(b, ep.Message...)
	sum := sha256.Sum256(b)
	if cap(b) <= maxDigestBuffer {
		*buf = b[:0]
		digestBuffers.Put(buf)
	}
	return binary.BigEndian.Uint64(sum[:8]), true
}

// formPinLabel starts what formTextDigest hashes, so that its input is
// never a questionDigest input: those begin with the request key, a spec
// name, never with a NUL.
const formPinLabel = "\x00mrtrgen/question-text/v1\x00"

// questionDigest identifies a question by everything it sends: the
// SHA-256 of the key, the kind and the question's JSON as encoding/json
// writes it. Tokens carry it (envelope v3, and v2's positional digests),
// so its value must never change for the same question: marshalQuestion
// writes the same bytes faster.
func questionDigest(p mrtrimpl.Pending) uint64 {
	buf := digestBuffers.Get().(*[]byte)
	b := (*buf)[:0]
	b = append(b, p.Key...)
	b = append(b, 0, byte(p.Kind), 0)
	if q, ok := appendQuestion(b, p.Params); ok {
		b = q
	} else if q, err := json.Marshal(p.Params); err == nil {
		b = append(b, q...)
	}
	sum := sha256.Sum256(b)
	if cap(b) <= maxDigestBuffer { // a huge question's buffer is not kept
		*buf = b[:0]
		digestBuffers.Put(buf)
	}
	return binary.BigEndian.Uint64(sum[:8])
}

// digestBuffers hold the bytes questionDigest hashes, a kilobyte or so per
// question, which every resumed round would otherwise allocate.
var digestBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

const maxDigestBuffer = 64 << 10

// marshalQuestion is json.Marshal(q), byte for byte, for the form
// elicitations generated code asks (false for anything else).
func marshalQuestion(q mcp.InputRequest) ([]byte, bool) { return appendQuestion(nil, q) }

// appendQuestion appends json.Marshal(q) to b, byte for byte, for the form
// elicitations generated code asks (false for anything else). Most of
// json.Marshal's time goes to compacting the requested schema, an indented
// json.RawMessage that is the same for every workflow: here it is
// compacted once (by encoding/json itself) and kept. The strings around it
// are written with segmentio's encoder, which escapes as encoding/json does
// (HTML characters, U+2028 and U+2029, invalid UTF-8), without reflection;
// _meta, when there is one, by encoding/json. Fields go in ElicitParams'
// order; TestMarshalQuestionIsJSONMarshal and its fuzz test hold the two
// together, so a go-sdk that adds a field fails there first.
func appendQuestion(b []byte, q mcp.InputRequest) ([]byte, bool) {
	ep, ok := q.(*mcp.ElicitParams)
	if !ok || ep == nil {
		return nil, false
	}
	schema, ok := ep.RequestedSchema.(json.RawMessage)
	if !ok || schema == nil {
		return nil, false
	}
	compact, ok := compactSchema(schema)
	if !ok {
		return nil, false
	}
	if len(ep.Meta) > 0 { // omitempty
		meta, err := json.Marshal(struct {
			Meta mcp.Meta `json:"_meta"`
		}{ep.Meta})
		if err != nil {
			return nil, false
		}
		b = append(append(b, meta[:len(meta)-1]...), ',') // without its "}"
	} else {
		b = append(b, '{')
	}
	var err error
	b = append(b, `"mode":`...)
	if b, err = segjson.Append(b, ep.Mode, segjson.EscapeHTML); err != nil {
		return nil, false
	}
	b = append(b, `,"message":`...)
	if b, err = segjson.Append(b, ep.Message, segjson.EscapeHTML); err != nil {
		return nil, false
	}
	b = append(b, `,"requestedSchema":`...)
	b = append(b, compact...)
	for _, f := range [...]struct{ name, value string }{{"url", ep.URL}, {"elicitationId", ep.ElicitationID}} {
		if f.value == "" {
			continue // omitempty
		}
		b = append(append(append(b, ',', '"'), f.name...), '"', ':')
		if b, err = segjson.Append(b, f.value, segjson.EscapeHTML); err != nil {
			return nil, false
		}
	}
	return append(b, '}'), true
}

// compactSchemas holds the compacted form of the schemas seen, by their
// text: generated code has one per question. Schemas with defaults (a
// re-asked form keeps the earlier answers there) are never kept: they hold
// what users answered.
var compactSchemas struct {
	sync.RWMutex
	m map[string][]byte
}

const maxCompactSchemas = 4096

// compactSchema is what json.Marshal writes for schema.
func compactSchema(schema json.RawMessage) ([]byte, bool) {
	compactSchemas.RLock()
	c, ok := compactSchemas.m[string(schema)]
	compactSchemas.RUnlock()
	if ok {
		return c, true
	}
	c, err := json.Marshal(schema)
	if err != nil {
		return nil, false
	}
	if bytes.Contains(schema, []byte(`"default"`)) {
		// A re-asked form's schema holds the user's earlier answers as
		// defaults: not kept past its round.
		return c, true
	}
	compactSchemas.Lock()
	if compactSchemas.m == nil {
		compactSchemas.m = map[string][]byte{}
	}
	if len(compactSchemas.m) < maxCompactSchemas {
		compactSchemas.m[string(schema)] = c
	}
	compactSchemas.Unlock()
	return c, true
}
