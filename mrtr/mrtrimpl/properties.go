package mrtrimpl

import (
	"bytes"
	"encoding/json"
)

// editProperties returns a generated form schema with some of its
// properties rewritten: for the property named name, edit returns the
// change to make to its decoded schema, or nil to keep its bytes as they
// are. The properties keep their order (the order a client shows the
// fields in); marshal encodes the properties changed and the schema.
func editProperties(schema json.RawMessage, marshal func(any) ([]byte, error), edit func(name string) func(field map[string]any)) (json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(schema, &top); err != nil {
		return nil, err
	}
	props, err := orderedObject(top["properties"])
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range props {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.key)
		b.Write(k)
		b.WriteByte(':')
		change := edit(p.key)
		if change == nil {
			b.Write(p.value)
			continue
		}
		var field map[string]any
		if err := json.Unmarshal(p.value, &field); err != nil {
			return nil, err
		}
		change(field)
		v, err := marshal(field)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	top["properties"] = b.Bytes()
	return marshal(top)
}
