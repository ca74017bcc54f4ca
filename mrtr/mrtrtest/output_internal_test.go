package mrtrtest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
)

func TestStructuredProblem(t *testing.T) {
	d := &mrtrimpl.Descriptor{Kind: vocab.KindTool, Name: "find",
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","maxLength":3}},"required":["id"]}`),
		States:       []mrtrimpl.StateInfo{{Name: "found", Kind: vocab.StateTerminal, End: vocab.OutcomeSuccess, Output: true}, {Name: "gone", Kind: vocab.StateTerminal, End: vocab.OutcomeFailed}}}
	final := func(o mrtr.Outcome, s string, path ...string) *mrtr.Reply {
		f := &mrtr.Final{Outcome: o, Text: "x"}
		if s != "" {
			f.Structured = json.RawMessage(s)
		}
		return &mrtr.Reply{Final: f, Path: path}
	}
	for _, c := range []struct {
		name  string
		d     *mrtrimpl.Descriptor
		reply *mrtr.Reply
		want  string // a part of the problem; "" for none
	}{
		{"conforms", d, final(mrtr.OutcomeSuccess, `{"id":"a1"}`, "found"), ""},
		{"replayed, conforms", d, final(mrtr.OutcomeSuccess, `{"id":"a1"}`), ""},
		{"breaks the schema", d, final(mrtr.OutcomeSuccess, `{"id":"a1234"}`, "found"), "does not conform"},
		{"missing from a state with output", d, final(mrtr.OutcomeSuccess, "", "found"), "no structured result from state found"},
		{"empty object misses a required field", d, final(mrtr.OutcomeCancelled, ""), "does not conform"},
		{"an error result is not checked", d, final(mrtr.OutcomeFailed, "", "gone"), ""},
		{"no schema, no structured result", &mrtrimpl.Descriptor{Name: "plain"}, final(mrtr.OutcomeSuccess, `{"id":"a"}`), "without an outputSchema"},
		{"input required", d, &mrtr.Reply{RequestState: "s"}, ""},
	} {
		got := structuredProblem(c.d, c.reply)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: problem %q, want one saying %q", c.name, got, c.want)
		}
	}
}

func TestReplyDiffStructured(t *testing.T) {
	a := &mrtr.Reply{Final: &mrtr.Final{Outcome: mrtr.OutcomeSuccess, Text: "x", Structured: json.RawMessage(`{"n":1}`)}}
	b := &mrtr.Reply{Final: &mrtr.Final{Outcome: mrtr.OutcomeSuccess, Text: "x", Structured: json.RawMessage(`{"n":2}`)}}
	if got := replyDiff(a, b); !strings.Contains(got, `the structured result {"n":1}, then {"n":2}`) {
		t.Fatalf("replyDiff = %q", got)
	}
	if got := replyDiff(a, a); got != "" {
		t.Fatalf("replyDiff of a reply with itself = %q", got)
	}
}

func TestWireStructuredProblem(t *testing.T) {
	d := &mrtrimpl.Descriptor{Kind: vocab.KindTool, Name: "find",
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)}
	for _, c := range []struct {
		name string
		d    *mrtrimpl.Descriptor
		res  *mcp.CallToolResult
		want string
	}{
		{"conforms", d, &mcp.CallToolResult{StructuredContent: map[string]any{"id": "a"}}, ""},
		{"missing", d, &mcp.CallToolResult{}, "without structuredContent"},
		{"breaks the schema", d, &mcp.CallToolResult{StructuredContent: map[string]any{}}, "does not conform"},
		{"an error result", d, &mcp.CallToolResult{IsError: true}, ""},
		{"no schema", &mrtrimpl.Descriptor{Name: "plain"}, &mcp.CallToolResult{}, ""},
		{"no schema, structured", &mrtrimpl.Descriptor{Name: "plain"}, &mcp.CallToolResult{StructuredContent: map[string]any{"id": "a"}}, "without an outputSchema"},
	} {
		got := wireStructuredProblem(c.d, c.res)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: problem %q, want one saying %q", c.name, got, c.want)
		}
	}
}
