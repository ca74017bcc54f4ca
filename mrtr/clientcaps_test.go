package mrtr

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestClientCapabilitiesAgreeWithTheSDK: the engine's decoding of the
// capabilities a 2026-07-28 request declares in _meta gives exactly what
// go-sdk's req.ClientCapabilities() gives, for every shape a client may
// send (as decoded from the wire: maps of any), including ones it should
// not (another case, wrong types, unknown keys).
func TestClientCapabilitiesAgreeWithTheSDK(t *testing.T) {
	for _, caps := range []string{
		`{}`,
		`{"elicitation":{}}`,
		`{"elicitation":{"form":{},"url":{}}}`,
		`{"elicitation":{"url":{}}}`,
		`{"sampling":{}}`,
		`{"sampling":{"context":{},"tools":{}}}`,
		`{"roots":{}}`,
		`{"roots":{"listChanged":true}}`,
		`{"roots":null,"elicitation":null}`,
		`{"experimental":{"x":{"y":[1,2,{"z":null}]}},"extensions":{"io.example/ext":{"on":true}}}`,
		`{"elicitation":{},"sampling":{},"roots":{"listChanged":false},"tasks":{"requests":{}}}`,
		`{"Elicitation":{},"SAMPLING":{}}`,
		`{"elicitation":"yes"}`,
		`{"roots":{"listChanged":"no"}}`,
		`{"elicitation":[]}`,
		`{"experimental":{"s":"<&>\u2028 \ud800 é","n":1e300,"m":-0.0000001,"i":12345678901234567890}}`,
		"{\"experimental\":{\"bad\":\"\xff\xfe\"}}",
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(caps), &m); err != nil {
			t.Fatal(err)
		}
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t", Meta: mcp.Meta{mcp.MetaKeyClientCapabilities: m}}}
		want, got := req.ClientCapabilities(), clientCapabilities(req)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: engine decodes %+v, the SDK %+v", caps, got, want)
		}
	}
	// No _meta, no session: none declared, as the SDK says.
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"}}
	if got, want := clientCapabilities(req), req.ClientCapabilities(); !reflect.DeepEqual(got, want) {
		t.Errorf("no _meta: %+v, the SDK %+v", got, want)
	}
	// Params that are a nil pointer: none declared, as the SDK says.
	nilParams := &mcp.CallToolRequest{Params: (*mcp.CallToolParamsRaw)(nil)}
	if got, want := clientCapabilities(nilParams), nilParams.ClientCapabilities(); !reflect.DeepEqual(got, want) {
		t.Errorf("nil params: %+v, the SDK %+v", got, want)
	}
	// A typed value put in _meta in process goes to the SDK.
	typed := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t", Meta: mcp.Meta{mcp.MetaKeyClientCapabilities: &mcp.ClientCapabilities{}}}}
	if got, want := clientCapabilities(typed), typed.ClientCapabilities(); !reflect.DeepEqual(got, want) {
		t.Errorf("typed: %+v, the SDK %+v", got, want)
	}
	prompt := &mcp.GetPromptRequest{Params: &mcp.GetPromptParams{Name: "p", Meta: mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{}}}}}
	if got, want := clientCapabilities(prompt), prompt.ClientCapabilities(); !reflect.DeepEqual(got, want) {
		t.Errorf("prompt: %+v, the SDK %+v", got, want)
	}
}

func BenchmarkClientCapabilities(b *testing.B) {
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t", Meta: mcp.Meta{
		mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}}}}}
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req.ClientCapabilities()
		}
	})
	b.Run("engine", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			clientCapabilities(req)
		}
	})
}
