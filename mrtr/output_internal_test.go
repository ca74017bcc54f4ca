package mrtr

import (
	"encoding/json"
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// A round record stores the reply as JSON: a structured result survives
// it byte for byte, and a record written before structured results existed
// (no "structured" key) still decodes, to a reply without one, which is
// what its tool (no outputSchema then) sent.
func TestRecordKeepsStructuredResult(t *testing.T) {
	in := &Reply{Final: &Final{Outcome: OutcomeSuccess, Text: "Deleted.", Structured: json.RawMessage(`{"customerId":"cus_1","deleted":true}`)}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Reply
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if got := string(out.Final.Structured); got != `{"customerId":"cus_1","deleted":true}` {
		t.Fatalf("recorded structured result %s", got)
	}
	var old Reply
	if err := json.Unmarshal([]byte(`{"final":{"outcome":"success","text":"Deleted."}}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.Final.Structured != nil || old.Final.Text != "Deleted." {
		t.Fatalf("an old record decodes to %+v", old.Final)
	}
}

func TestToolResultStructuredContent(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)
	withSchema := &mrtrimpl.Descriptor{Kind: vocab.KindTool, Name: "t", OutputSchema: schema}
	without := &mrtrimpl.Descriptor{Kind: vocab.KindTool, Name: "t"}
	structured := json.RawMessage(`{"id":"x"}`)
	for _, c := range []struct {
		name string
		d    *mrtrimpl.Descriptor
		f    *Final
		want string // the structuredContent as JSON; "" for none
	}{
		{"the state's output", withSchema, &Final{Outcome: OutcomeSuccess, Text: "ok", Structured: structured}, `{"id":"x"}`},
		{"a state without output", withSchema, &Final{Outcome: OutcomeCancelled, Text: "no"}, `{}`},
		{"an error result", withSchema, &Final{Outcome: OutcomeError, Text: "failed"}, ""},
		{"a rejection", withSchema, &Final{Outcome: OutcomeRejected, Text: "no"}, ""},
		{"no outputSchema", without, &Final{Outcome: OutcomeSuccess, Text: "ok"}, ""},
	} {
		res := toolResult(c.d, c.f)
		got := ""
		if res.StructuredContent != nil {
			b, err := json.Marshal(res.StructuredContent)
			if err != nil {
				t.Fatal(err)
			}
			got = string(b)
		}
		if got != c.want {
			t.Errorf("%s: structuredContent %q, want %q", c.name, got, c.want)
		}
		if res.IsError != c.f.IsError() || len(res.Content) != 1 {
			t.Errorf("%s: isError %v and %d contents", c.name, res.IsError, len(res.Content))
		}
	}
}
