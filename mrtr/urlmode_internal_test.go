package mrtr

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// elicitation.url is declared only by url: {}; a bare elicitation: {} is
// forms only, and url: {} alone is URLs only.
func TestURLCapability(t *testing.T) {
	for _, tc := range []struct {
		name        string
		caps        *mcp.ClientCapabilities
		forms, urls bool
	}{
		{"none", &mcp.ClientCapabilities{}, false, false},
		{"bare", &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}, true, false},
		{"form", &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}, true, false},
		{"url only", &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}, false, true},
		{"both", &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}, true, true},
		{"nil", nil, false, false},
	} {
		if got := hasCapability(tc.caps, vocab.CapElicitation); got != tc.forms {
			t.Errorf("%s: forms %v, want %v", tc.name, got, tc.forms)
		}
		if got := hasCapability(tc.caps, vocab.CapElicitationURL); got != tc.urls {
			t.Errorf("%s: urls %v, want %v", tc.name, got, tc.urls)
		}
	}
	var je *jsonrpc.Error
	if err := missingCapabilitiesError([]vocab.Capability{vocab.CapElicitationURL, vocab.CapSampling}); !errors.As(err, &je) || je.Code != -32021 {
		t.Fatalf("%v", err)
	}
	var data map[string]any
	_ = json.Unmarshal(je.Data, &data)
	if got, _ := json.Marshal(data); string(got) != `{"requiredCapabilities":{"elicitation":{"url":{}},"sampling":{}}}` {
		t.Fatalf("data %s", got)
	}
	if !strings.Contains(je.Message, "elicitation.url") {
		t.Fatalf("message %q", je.Message)
	}
}

// A path url is sent on PublicURL; an absolute one as it is; a path
// without PublicURL fails the round. The request as asked is not changed.
func TestPublicParams(t *testing.T) {
	d := &mrtrimpl.Descriptor{Name: "t"}
	path := mrtrimpl.Pending{Key: "k", Kind: vocab.ElicitURL, Params: &mcp.ElicitParams{Mode: "url", Message: "m", URL: "/oob/x?p=1"}}
	e := &Engine{cfg: Config{PublicURL: "https://tools.example.com"}}
	got, err := e.publicParams(d, path)
	if err != nil || got.(*mcp.ElicitParams).URL != "https://tools.example.com/oob/x?p=1" || path.Params.(*mcp.ElicitParams).URL != "/oob/x?p=1" {
		t.Fatalf("%+v %v", got, err)
	}
	abs := mrtrimpl.Pending{Key: "k", Kind: vocab.ElicitURL, Params: &mcp.ElicitParams{Mode: "url", URL: "https://pay.example.com/c"}}
	if got, _ := e.publicParams(d, abs); got.(*mcp.ElicitParams).URL != "https://pay.example.com/c" {
		t.Fatalf("%+v", got)
	}
	if _, err := (&Engine{}).publicParams(d, path); err == nil || !strings.Contains(err.Error(), "PublicURL") {
		t.Fatalf("without PublicURL: %v", err)
	}
	ring, err := seal.EphemeralRing(func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	codec := seal.New(ring, seal.Options{})
	if _, err := NewEngine(Config{Audience: "a", Codec: codec, PublicURL: "https://tools.example.com/"}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"ftp://x", "https://", "https://u:p@x", "https://x/?q=1", "https://x/#f", "x.example.com"} {
		if _, err := NewEngine(Config{Audience: "a", Codec: codec, PublicURL: bad}); err == nil {
			t.Errorf("PublicURL %q accepted", bad)
		}
	}
	p := sessionElicitation(path.Params.(*mcp.ElicitParams))
	if len(p.ElicitationID) != 32 || path.Params.(*mcp.ElicitParams).ElicitationID != "" {
		t.Fatalf("session params %+v", p)
	}
}
