package mrtr

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const indentedSchema = `{
  "properties": {
    "why": {"type": "string", "title": "Why <not> & \u00e9 \"q\" \u2028", "maxLength": 10},
    "ok":  {"type": "boolean", "description": "a\tb  c"}
  },
  "required": ["why"],
  "type": "object"
}`

// TestMarshalQuestionIsJSONMarshal: the digest of a question is the
// digest of json.Marshal's bytes, however they are made.
func TestMarshalQuestionIsJSONMarshal(t *testing.T) {
	for _, q := range []*mcp.ElicitParams{
		{Mode: "form", Message: "Why?", RequestedSchema: json.RawMessage(indentedSchema)},
		{Message: "<b>&amp;</b> \u2028 \u2029 \xff é \"q\" \\ \n\t\x01", RequestedSchema: json.RawMessage(`{"type":"object"}`)},
		{Mode: "form", Message: "m", RequestedSchema: json.RawMessage(indentedSchema), URL: "https://x/?a=<1>&b=2", ElicitationID: "e1"},
		{Meta: mcp.Meta{"k": map[string]any{"z": []any{1, "<", nil}}, "a": true}, Mode: "form", Message: "m", RequestedSchema: json.RawMessage(indentedSchema)},
		{Meta: mcp.Meta{}, Message: "", RequestedSchema: json.RawMessage(" {\"a\" : [ 1 , 2 ] } ")},
	} {
		want, err := json.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := marshalQuestion(q)
		if !ok || !bytes.Equal(got, want) {
			t.Errorf("marshalQuestion = %s (%v)\njson.Marshal   = %s", got, ok, want)
		}
	}
	// Not a form with a raw schema: json.Marshal's job.
	for _, q := range []mcp.InputRequest{
		&mcp.ElicitParams{Mode: "url", Message: "m", URL: "https://x"},
		&mcp.ElicitParams{Message: "m", RequestedSchema: map[string]any{"type": "object"}},
		&mcp.ElicitParams{Message: "m", RequestedSchema: json.RawMessage(`{"broken"`)},
		//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; its questions must digest too
		&mcp.ListRootsParams{},
	} {
		if b, ok := marshalQuestion(q); ok {
			t.Errorf("marshalQuestion(%#v) = %s, want no fast path", q, b)
		}
	}
}

func FuzzMarshalQuestion(f *testing.F) {
	f.Add("form", "Why?", indentedSchema, "", "", "k", "v")
	f.Add("", "<&>\u2028", `{"a":"<\u2029>"}`, "https://x/?q=<>", "id", "", "")
	f.Fuzz(func(t *testing.T, mode, message, schema, url, id, metaKey, metaValue string) {
		if !json.Valid([]byte(schema)) {
			return
		}
		q := &mcp.ElicitParams{Mode: mode, Message: message, RequestedSchema: json.RawMessage(schema), URL: url, ElicitationID: id}
		if metaKey != "" {
			q.Meta = mcp.Meta{metaKey: metaValue}
		}
		want, err := json.Marshal(q)
		if err != nil {
			t.Skip()
		}
		got, ok := marshalQuestion(q)
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("marshalQuestion = %q (%v)\njson.Marshal   = %q", got, ok, want)
		}
	})
}

func BenchmarkQuestionDigest(b *testing.B) {
	q := &mcp.ElicitParams{Mode: "form", Message: "Provide the reason for closing ticket 12345.", RequestedSchema: json.RawMessage(indentedSchema)}
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("marshalQuestion", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			marshalQuestion(q)
		}
	})
}
