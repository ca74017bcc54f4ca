package mrtr

import (
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

// clientCapabilities is req.ClientCapabilities(), the same value, without
// its cost: go-sdk v1.8.0 re-decodes the request's
// io.modelcontextprotocol/clientCapabilities value through a streaming
// decoder that allocates a 32 KiB buffer twice per call (≈ 60 KB, most of
// what a final round allocated). This decodes the same JSON with the same
// decoder and flags (segmentio's, case-sensitive field names) straight
// from the bytes. Values it cannot read that way (typed values put in the
// _meta map in process), and sessions of older clients, go to the SDK.
// TestClientCapabilitiesAgreeWithTheSDK holds the two together.
func clientCapabilities[P mcp.Params](req *mcp.ServerRequest[P]) *mcp.ClientCapabilities {
	if req != nil && any(req.Params) != nil && !reflect.ValueOf(req.Params).IsNil() {
		if meta := req.Params.GetMeta(); meta != nil {
			if m, ok := meta[mcp.MetaKeyClientCapabilities].(map[string]any); ok {
				if c, ok := decodeCapabilities(m); ok {
					return c
				}
			}
		}
	}
	return req.ClientCapabilities()
}

// wireCapabilities is the 2026-07-28 shape of the capabilities in _meta:
// roots is a pointer there (go-sdk's clientCapabilitiesV2).
type wireCapabilities struct {
	mcp.ClientCapabilities
	//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; the runtime reads what clients declare
	Roots *mcp.RootCapabilities `json:"roots,omitempty"`
}

func decodeCapabilities(m map[string]any) (*mcp.ClientCapabilities, bool) {
	if c, ok := commonCapabilities(m); ok {
		return c, true
	}
	// segmentio's encoder writes what encoding/json writes for the values
	// a JSON decoder produces, several times faster; the decoder reads
	// either the same (TestClientCapabilitiesAgreeWithTheSDK).
	b, err := segjson.Marshal(m)
	if err != nil {
		return nil, false
	}
	var w wireCapabilities
	if rest, err := segjson.Parse(b, &w, segjson.DontMatchCaseInsensitiveStructFields); err != nil || len(rest) != 0 {
		return nil, false
	}
	caps := w.ClientCapabilities
	// As the SDK does: both roots fields say the same.
	if w.Roots != nil {
		//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; the runtime reads what clients declare
		caps.RootsV2, caps.Roots = w.Roots, *w.Roots
	}
	return &caps, true
}

// commonCapabilities reads the capabilities nearly every client declares,
// elicitation (form, url) and roots (listChanged), straight from the
// decoded map, as the JSON decoder would fill the struct; any other key,
// type or content is left to the JSON route (false). Re-encoding the map
// and decoding it again ran a JSON encoder and decoder on every round, code
// a round over HTTP finds out of the CPU caches (docs/benchmarks.md, "cold
// code"). A nil map, typed or not, is JSON's null, as the encoder writes it.
func commonCapabilities(m map[string]any) (*mcp.ClientCapabilities, bool) {
	caps := &mcp.ClientCapabilities{}
	for k, v := range m {
		if v == nil {
			continue // null: the pointer stays nil
		}
		fields, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if fields == nil {
			continue // a nil map: null
		}
		switch k {
		case "elicitation":
			e := &mcp.ElicitationCapabilities{}
			for mode, v := range fields {
				if v == nil {
					continue
				}
				// An empty object, as clients send it. Anything in it is
				// left to the JSON route, which also fails on what it
				// cannot encode (a NaN, a channel put there in process).
				obj, ok := v.(map[string]any)
				if !ok || len(obj) > 0 {
					return nil, false
				}
				if obj == nil {
					continue // a nil map: null
				}
				switch mode {
				case "form":
					e.Form = &mcp.FormElicitationCapabilities{}
				case "url":
					e.URL = &mcp.URLElicitationCapabilities{}
				default:
					return nil, false
				}
			}
			caps.Elicitation = e
		case "roots":
			//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; the runtime reads what clients declare
			r := &mcp.RootCapabilities{}
			for name, v := range fields {
				listChanged, isBool := v.(bool)
				if name != "listChanged" || (v != nil && !isBool) {
					return nil, false
				}
				r.ListChanged = listChanged
			}
			// As the SDK does: both roots fields say the same.
			//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; the runtime reads what clients declare
			caps.RootsV2, caps.Roots.ListChanged = r, r.ListChanged
		default:
			return nil, false
		}
	}
	return caps, true
}
