package app

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReadUnknownResource: a resources/read of a service the catalog lacks
// (services://nope/status matches the status template; its spec ends at a
// notFound terminal) and of a URI no resource matches are both the
// resource-not-found error of the client's revision, with data.uri:
// -32602 on 2026-07-28, -32002 on 2025-11-25 (issue 27, item 2).
func TestReadUnknownResource(t *testing.T) {
	s := start(t, "memory:", testRing(t), "not-found")
	for _, c := range []struct {
		version string
		code    int64
	}{
		{"", -32602}, // 2026-07-28
		{"2025-11-25", -32002},
	} {
		name := c.version
		if name == "" {
			name = "2026-07-28"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			cs := connect(t, s.URL, nil, c.version)
			if got := cs.InitializeResult().ProtocolVersion; got != name {
				t.Fatalf("negotiated %s, want %s", got, name)
			}
			for _, r := range []struct{ uri, message string }{
				{"services://nope/status", "There is no service nope."},
				{"services://nope/elsewhere", "Resource not found"}, // the SDK's: no template matches
			} {
				_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.uri})
				var je *jsonrpc.Error
				if !errors.As(err, &je) {
					t.Fatalf("%s: want a JSON-RPC error, got %v", r.uri, err)
				}
				if je.Code != c.code || je.Message != r.message || string(je.Data) != `{"uri":"`+r.uri+`"}` {
					t.Errorf("%s: code %d, message %q, data %s; want %d, %q, uri", r.uri, je.Code, je.Message, je.Data, c.code, r.message)
				}
			}
			if c.version == "" {
				// A service that exists is still read (it asks how much to show).
				read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "services://billing/status"})
				if err != nil || !read.NeedsInput() {
					t.Fatalf("services://billing/status: %+v, %v", read, err)
				}
			}
		})
	}
}
