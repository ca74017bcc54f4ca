package mrtr

import (
	"encoding/json"
	"math"
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
		// The shapes commonCapabilities reads itself, and the ones next to
		// them it leaves to the JSON route.
		`{"elicitation":{"form":{}},"roots":{"listChanged":true}}`,
		`{"elicitation":{"form":{"ignored":[1]},"url":null},"roots":{"listChanged":null}}`,
		`{"elicitation":{"form":null,"url":{}},"roots":null}`,
		`{"elicitation":{"form":"yes"}}`,
		`{"elicitation":{"form":[]}}`,
		`{"elicitation":{"other":{}}}`,
		`{"elicitation":{"Form":{}}}`,
		`{"elicitation":null,"roots":{"listChanged":false}}`,
		`{"roots":{"listChanged":1}}`,
		`{"roots":{"listChanged":true,"other":true}}`,
		`{"roots":[]}`,
		`{"elicitation":{},"experimental":{}}`,
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
	// Maps built in process, which no JSON decoder produces: typed nil maps
	// (JSON's null to the encoder) and values the encoder refuses.
	for name, m := range map[string]map[string]any{
		"nil elicitation":     {"elicitation": map[string]any(nil)},
		"nil roots":           {"roots": map[string]any(nil), "elicitation": map[string]any{}},
		"nil form":            {"elicitation": map[string]any{"form": map[string]any(nil), "url": map[string]any{}}},
		"NaN in form":         {"elicitation": map[string]any{"form": map[string]any{"x": math.NaN()}}},
		"channel in url":      {"elicitation": map[string]any{"url": map[string]any{"c": make(chan int)}}},
		"func in roots":       {"roots": map[string]any{"listChanged": func() {}}},
		"typed bool in roots": {"roots": map[string]any{"listChanged": true}},
	} {
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t", Meta: mcp.Meta{mcp.MetaKeyClientCapabilities: m}}}
		if got, want := clientCapabilities(req), req.ClientCapabilities(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: engine decodes %+v, the SDK %+v", name, got, want)
		}
	}
	// The capabilities most clients declare never take the JSON route.
	for _, caps := range []map[string]any{
		{},
		{"elicitation": map[string]any{"form": map[string]any{}}, "roots": map[string]any{"listChanged": true}},
		{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}},
	} {
		if _, ok := commonCapabilities(caps); !ok {
			t.Errorf("%v: left to the JSON route", caps)
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

// FuzzClientCapabilities: for any JSON object a client declares, the
// engine reads the same capabilities as the SDK.
func FuzzClientCapabilities(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"elicitation":{"form":{}},"roots":{"listChanged":true}}`, `{"elicitation":{"url":{"a":1}}}`,
		`{"roots":{"listChanged":null}}`, `{"sampling":{"tools":{}}}`, `{"elicitation":{"form":0}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, caps string) {
		var m map[string]any
		if json.Unmarshal([]byte(caps), &m) != nil || m == nil {
			return
		}
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t", Meta: mcp.Meta{mcp.MetaKeyClientCapabilities: m}}}
		if got, want := clientCapabilities(req), req.ClientCapabilities(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: engine decodes %+v, the SDK %+v", caps, got, want)
		}
	})
}
