// Package plainjson is the JSON encoding of the schemas mrtrgen writes
// and the runtime edits (generator, mrtr/mrtrimpl): json.Marshal without
// HTML escaping, since schemas hold texts shown to people (titles such as
// "Smith & Sons", descriptions with < or >).
package plainjson

import (
	"bytes"
	"encoding/json"
)

// Marshal is json.Marshal without HTML escaping.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
