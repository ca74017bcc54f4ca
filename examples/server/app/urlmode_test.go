package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
)

// bearer adds a demo sign-in to every MCP request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// pageUser is a person at the browser: asked to open a URL, they load the
// page, sign in with their own demo token and grant access, then accept.
type pageUser struct {
	t       *testing.T
	token   string // the token typed into the page ("" grants nothing: the user does not finish)
	mu      sync.Mutex
	opened  []string
	granted int
}

func (u *pageUser) handle(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p := req.Params
	if p.Mode != "url" {
		return nil, fmt.Errorf("asked a %q elicitation, want url", p.Mode)
	}
	u.mu.Lock()
	u.opened = append(u.opened, p.URL)
	u.mu.Unlock()
	page, err := http.Get(p.URL)
	if err != nil {
		return nil, err
	}
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if page.StatusCode != http.StatusOK || !strings.Contains(string(body), `id="grant"`) {
		return nil, fmt.Errorf("GET %s: %s %s", p.URL, page.Status, body)
	}
	if u.token != "" {
		provider, _ := url.Parse(p.URL)
		resp, err := http.PostForm(p.URL, url.Values{"token": {u.token}, "provider": {provider.Query().Get("provider")}})
		if err != nil {
			return nil, err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `id="done"`) {
			return nil, fmt.Errorf("POST %s: %s %s", p.URL, resp.Status, body)
		}
		u.mu.Lock()
		u.granted++
		u.mu.Unlock()
	}
	// Accepting says only that the user opened the URL.
	return &mcp.ElicitResult{Action: "accept"}, nil
}

// urlClient connects a go-sdk client signed in as user, declaring
// elicitation with the given modes, answering rounds itself (the SDK's
// MRTR loop) with u; version "" negotiates 2026-07-28.
func urlClient(t *testing.T, endpoint, user string, caps *mcp.ElicitationCapabilities, u *pageUser, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "url-test", Version: "test"}, &mcp.ClientOptions{
		ElicitationHandler: u.handle,
		Capabilities:       &mcp.ClientCapabilities{Elicitation: caps},
	})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint:   endpoint,
		HTTPClient: &http.Client{Transport: bearer{DemoToken(user), http.DefaultTransport}},
	}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

var formsAndURLs = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}

// TestURLModeOverHTTP: a go-sdk client connects alice's calendar over HTTP.
// The URL-mode elicitation sends it to the server's own calendar page; the
// user signs in there and grants access (a real GET and POST), the client
// accepts, and the check finds alice's grant for that workflow. On
// 2026-07-28 and on an older protocol (asked over the session, with an
// elicitationId).
func TestURLModeOverHTTP(t *testing.T) {
	s := start(t, "memory:", testRing(t), "url-1")
	ctx := context.Background()
	for _, tc := range []struct{ version, provider string }{{"", "work"}, {"2025-11-25", "personal"}} {
		u := &pageUser{t: t, token: DemoToken("alice")}
		cs := urlClient(t, s.URL, "alice", formsAndURLs, u, tc.version)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "connect_calendar", Arguments: map[string]any{"provider": tc.provider}})
		if err != nil {
			t.Fatalf("%s: %v", tc.version, err)
		}
		if res.IsError || !strings.Contains(text(t, res), "Your "+tc.provider+" calendar is connected (grant grant-") {
			t.Fatalf("%s: %+v %q", tc.version, res, text(t, res))
		}
		if len(u.opened) != 1 || u.granted != 1 || !strings.HasPrefix(u.opened[0], s.base+CalendarPagePath) ||
			!strings.HasSuffix(u.opened[0], "?provider="+tc.provider) {
			t.Fatalf("%s: opened %v, granted %d", tc.version, u.opened, u.granted)
		}
		link, ok, err := domain.Load[domain.CalendarLink](ctx, s.Data, domain.CalendarLinkKey("alice", tc.provider))
		if err != nil || !ok || !strings.HasPrefix(link.GrantID, "grant-") {
			t.Fatalf("%s: link %+v %v %v", tc.version, link, ok, err)
		}
		if n, _ := domain.Effects(ctx, s.Data, "connect_calendar", "alice:"+tc.provider); n != 1 {
			t.Fatalf("%s: sync enabled %d times", tc.version, n)
		}
	}
}

// The step is bound to the caller: bob completing the page alice's client
// opened grants alice nothing, so after three accepts the workflow gives
// up; a user who accepts without finishing gets the page again, saying so.
func TestURLModeBoundToTheCaller(t *testing.T) {
	s := start(t, "memory:", testRing(t), "url-2")
	ctx := context.Background()
	u := &pageUser{t: t, token: DemoToken("bob")}
	cs := urlClient(t, s.URL, "alice", formsAndURLs, u, "")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "connect_calendar", Arguments: map[string]any{"provider": "work"}})
	if err != nil {
		t.Fatal(err)
	}
	if text(t, res) != "No calendar was connected." || len(u.opened) != 3 {
		t.Fatalf("%+v %q, opened %d pages", res, text(t, res), len(u.opened))
	}
	for _, user := range []string{"alice", "bob"} {
		if _, ok, _ := domain.Load[domain.CalendarLink](ctx, s.Data, domain.CalendarLinkKey(user, "work")); ok {
			t.Fatalf("%s's calendar got connected", user)
		}
	}

	// Round by round: accepting without finishing asks again.
	raw := mcp.NewClient(&mcp.Implementation{Name: "url-test", Version: "test"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities:   &mcp.ClientCapabilities{Elicitation: formsAndURLs},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("asked over the session")
		},
	})
	rs, err := raw.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.URL,
		HTTPClient: &http.Client{Transport: bearer{DemoToken("alice"), http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	args := map[string]any{"provider": "work"}
	r1, err := rs.CallTool(ctx, &mcp.CallToolParams{Name: "connect_calendar", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	ask, ok := r1.InputRequests["grant"].(*mcp.ElicitParams)
	if !ok || ask.Mode != "url" || ask.ElicitationID != "" || ask.RequestedSchema != nil {
		t.Fatalf("round 1 asks %#v", r1.InputRequests["grant"])
	}
	wire, _ := json.Marshal(ask)
	if strings.Contains(string(wire), "requestedSchema") || strings.Contains(string(wire), "elicitationId") {
		t.Fatalf("round 1 sends %s", wire)
	}
	accept := mcp.InputResponseMap{"grant": &mcp.ElicitResult{Action: "accept"}}
	r2, err := rs.CallTool(ctx, &mcp.CallToolParams{Name: "connect_calendar", Arguments: args, InputResponses: accept, RequestState: r1.RequestState})
	if err != nil {
		t.Fatal(err)
	}
	again, ok := r2.InputRequests["grant"].(*mcp.ElicitParams)
	if !ok || !strings.Contains(again.Message, "has no grant from you yet") || again.URL != ask.URL {
		t.Fatalf("round 2: %+v", r2)
	}
	// An anonymous caller is refused; a token that is not a demo token is
	// not authenticated. (Its client opens URLs: one that cannot is refused
	// -32021 before anything else, TestURLModeFormOnlyClient.)
	anon := connect(t, s.URL, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities: &mcp.ClientCapabilities{Elicitation: formsAndURLs}}, "")
	r, err := anon.CallTool(ctx, &mcp.CallToolParams{Name: "connect_calendar", Arguments: args})
	if err != nil || !r.IsError || !strings.Contains(text(t, r), "sign in first") {
		t.Fatalf("anonymous: %+v, %v", r, err)
	}
}

// A form-only client gets -32021 naming elicitation.url, before anything
// is sent or done: one declaring a bare elicitation: {}, and a go-sdk
// client left to its defaults (it declares elicitation: {form: {}}).
func TestURLModeFormOnlyClient(t *testing.T) {
	s := start(t, "memory:", testRing(t), "url-3")
	ctx := context.Background()
	for _, tc := range []struct {
		version string
		caps    *mcp.ElicitationCapabilities
	}{{"", &mcp.ElicitationCapabilities{}}, {"2025-11-25", &mcp.ElicitationCapabilities{}}, {"", nil}, {"2025-11-25", nil}} {
		version := tc.version
		u := &pageUser{t: t, token: DemoToken("alice")}
		cs := urlClient(t, s.URL, "alice", tc.caps, u, version)
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "connect_calendar", Arguments: map[string]any{"provider": "work"}})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != -32021 || !strings.Contains(je.Message, "elicitation.url") {
			t.Fatalf("%s: %v, want -32021 naming elicitation.url", version, err)
		}
		var data struct {
			RequiredCapabilities map[string]map[string]any `json:"requiredCapabilities"`
		}
		if err := json.Unmarshal(je.Data, &data); err != nil || data.RequiredCapabilities["elicitation"]["url"] == nil {
			t.Fatalf("%s: data %s (%v), want requiredCapabilities.elicitation.url", version, je.Data, err)
		}
		if len(u.opened) != 0 {
			t.Fatalf("%s: the client was asked %v", version, u.opened)
		}
	}
	if n, _ := domain.Effects(ctx, s.Data, "connect_calendar", "alice:work"); n != 0 {
		t.Fatalf("sync enabled %d times", n)
	}
}
