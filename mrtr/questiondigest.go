package mrtr

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
)

// questionDigest identifies a question: its key, kind and everything the
// client was shown or asked to fill (message, schema, prompt...): the
// SHA-256 of the key, the kind and the question's JSON as encoding/json
// writes it. Tokens carry it (envelope v3), so its value must never change
// for the same question: marshalQuestion writes the same bytes faster.
func questionDigest(p mrtrimpl.Pending) uint64 {
	h := sha256.New()
	h.Write([]byte(p.Key))
	h.Write([]byte{0, byte(p.Kind), 0})
	if b, ok := marshalQuestion(p.Params); ok {
		h.Write(b)
	} else if b, err := json.Marshal(p.Params); err == nil {
		h.Write(b)
	}
	return binary.BigEndian.Uint64(h.Sum(nil))
}

// marshalQuestion is json.Marshal(q), byte for byte, for the form
// elicitations generated code asks (false for anything else). Most of
// json.Marshal's time goes to compacting the requested schema, an indented
// json.RawMessage that is the same for every workflow: here it is
// compacted once (by encoding/json itself) and kept. The fields around it
// are written by encoding/json too, in ElicitParams' field order;
// TestMarshalQuestionIsJSONMarshal and its fuzz test hold the two
// together, so a go-sdk that adds a field fails there first.
func marshalQuestion(q mcp.InputRequest) ([]byte, bool) {
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
	head, err := json.Marshal(struct {
		Meta    mcp.Meta `json:"_meta,omitempty"`
		Mode    string   `json:"mode"`
		Message string   `json:"message"`
	}{ep.Meta, ep.Mode, ep.Message})
	if err != nil {
		return nil, false
	}
	b := head[:len(head)-1] // the object's fields so far, without its "}"
	b = append(b, `,"requestedSchema":`...)
	b = append(b, compact...)
	for _, f := range [...]struct{ name, value string }{{"url", ep.URL}, {"elicitationId", ep.ElicitationID}} {
		if f.value == "" {
			continue // omitempty
		}
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, false
		}
		b = append(append(append(append(b, ',', '"'), f.name...), '"', ':'), v...)
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
