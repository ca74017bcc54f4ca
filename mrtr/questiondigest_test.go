package mrtr

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
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

// A form question of an ask is pinned by its text: what breaking calls
// compatible for its form (an enum value appended, an optional field added,
// a constraint widened or narrowed, titles) keeps the pin, and the answer is
// validated against the form as asked now. Its message, key or mode change
// the pin. Gates and other requests are pinned by everything they send.
func TestPinnedDigest(t *testing.T) {
	form := func(key, message, schema string) mrtrimpl.Pending {
		return mrtrimpl.Pending{Key: key, Kind: vocab.Elicit, Params: &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: json.RawMessage(schema)}}
	}
	const (
		schema   = `{"type":"object","properties":{"why":{"type":"string","enum":["resolved","duplicate"]}},"required":["why"]}`
		appended = `{"type":"object","properties":{"why":{"type":"string","enum":["resolved","duplicate","wontfix"]},"note":{"type":"string","maxLength":9}},"required":["why"]}`
	)
	old, now := form("reason", "Why close 1?", schema), form("reason", "Why close 1?", appended)
	if pinnedDigest(vocab.StateAsk, old) != pinnedDigest(vocab.StateAsk, now) {
		t.Error("an ask's form changed compatibly and its pin changed")
	}
	if questionDigest(old) == questionDigest(now) {
		t.Fatal("the full digest does not see the form")
	}
	for name, p := range map[string]mrtrimpl.Pending{
		"message": form("reason", "Why close 2?", schema),
		"key":     form("why", "Why close 1?", schema),
		"mode":    {Key: "reason", Kind: vocab.Elicit, Params: &mcp.ElicitParams{Mode: "url", Message: "Why close 1?", RequestedSchema: json.RawMessage(schema)}},
	} {
		if pinnedDigest(vocab.StateAsk, p) == pinnedDigest(vocab.StateAsk, old) {
			t.Errorf("another %s kept the pin", name)
		}
	}
	// A gate's question, a sampling prompt, a URL: everything they send.
	if pinnedDigest(vocab.StateConfirm, old) != questionDigest(old) || pinnedDigest(vocab.StateConfirm, old) == pinnedDigest(vocab.StateConfirm, now) {
		t.Error("a gate is not pinned by everything it sends")
	}
	//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; this test covers it
	sample := mrtrimpl.Pending{Key: "summary", Kind: vocab.Sample, Params: &mcp.CreateMessageParams{MaxTokens: 10}}
	if pinnedDigest(vocab.StateAsk, sample) != questionDigest(sample) {
		t.Error("a sampling request is not pinned by everything it sends")
	}
	url := mrtrimpl.Pending{Key: "login", Kind: vocab.ElicitURL, Params: &mcp.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://x/a"}}
	if pinnedDigest(vocab.StateAsk, url) != questionDigest(url) {
		t.Error("a URL elicitation is not pinned by everything it sends")
	}

	// Tokens of builds before the form pin carry the full digest: an
	// unchanged question still matches, a changed one does not.
	if !pinMatches(vocab.StateAsk, old, questionDigest(old)) || !pinMatches(vocab.StateAsk, now, pinnedDigest(vocab.StateAsk, old)) {
		t.Error("a pin of this build or a full digest of the same question did not match")
	}
	if pinMatches(vocab.StateAsk, now, questionDigest(old)) || pinMatches(vocab.StateConfirm, now, questionDigest(old)) {
		t.Error("the full digest of another question matched")
	}
}
