package mrtrimpl

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// withPrefill returns the form q asked again after an answer with problems,
// with each field the answer gave a valid value for set as that field's
// default: the user corrects what was wrong instead of filling the whole
// form again. Fields a problem names ("seats: at least 1") are left empty,
// and so are the sensitive ones: a default is sent to the client (and kept
// in the round's record), which a sensitive value must never be. Generated
// code calls it; a request that is not a form is returned as is.
func withPrefill(q Pending, given map[string]any, problems Problems, sensitive ...string) Pending {
	ep, ok := q.Params.(*mcp.ElicitParams)
	if !ok || len(given) == 0 {
		return q
	}
	schema, ok := ep.RequestedSchema.(json.RawMessage)
	if !ok {
		return q
	}
	wrong := map[string]bool{}
	for _, name := range sensitive {
		wrong[name] = true
	}
	for _, p := range problems {
		name, _, found := strings.Cut(p, ":")
		if !found {
			return q // a problem of the whole form: nothing is known to be right
		}
		wrong[strings.TrimSuffix(name, "[]")] = true
	}
	filled, err := prefill(schema, given, wrong)
	if err != nil {
		return q
	}
	params := *ep
	params.RequestedSchema = filled
	q.Params = &params
	return q
}

// prefill sets "default" on the properties of schema that given has a value
// for and wrong does not name, keeping the properties' order.
func prefill(schema json.RawMessage, given map[string]any, wrong map[string]bool) (json.RawMessage, error) {
	return editProperties(schema, json.Marshal, func(name string) func(map[string]any) {
		v, ok := given[name]
		if !ok || v == nil || wrong[name] {
			return nil
		}
		return func(field map[string]any) { field["default"] = v }
	})
}

type member struct {
	key   string
	value json.RawMessage
}

// orderedObject reads a JSON object's members in the order they appear.
func orderedObject(raw json.RawMessage) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key: t.(string), value: v})
	}
	return out, nil
}
