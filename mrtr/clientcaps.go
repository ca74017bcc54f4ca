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
