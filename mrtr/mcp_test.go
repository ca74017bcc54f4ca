package mrtr_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// serve starts transfer and vault behind mrtr.Handler.
func serve(t *testing.T) (string, *testprog.TransferImpl) {
	t.Helper()
	clock := mrtrtest.NewClock()
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "http-test", Codec: mrtrtest.NewCodec(t, clock), Logger: quiet,
		Store: store.NewMemory(store.Options{Now: clock.Now})})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "http-test", Version: "test"}, nil)
	impl := &testprog.TransferImpl{}
	testprog.RegisterTransfer(s, e, impl)
	testprog.RegisterVault(s, e, &testprog.VaultImpl{})
	ts := httptest.NewServer(mrtr.Handler(s, nil))
	t.Cleanup(ts.Close)
	return ts.URL, impl
}

func connect(t *testing.T, url string, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "test"}, opts)
	c.AddRoots(&mcp.Root{URI: "file:///tmp"})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// A client older than MRTR, on a stateful session, completes a three-round
// workflow in one call: the engine asks it over its session.
func TestOldClientCompletesThroughTheBridge(t *testing.T) {
	url, impl := serve(t)
	asked := map[string]int{}
	cs := connect(t, url, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if _, ok := req.Params.RequestedSchema.(map[string]any)["properties"].(map[string]any)["confirm"]; ok {
				asked["confirm"]++
				return confirm(true), nil
			}
			asked["memo"]++
			return memo("rent"), nil
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			asked["summary"]++
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "rent"}}, nil
		},
	}, "2025-11-25")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "transfer", Arguments: transferArgs})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.NeedsInput() || impl.SentCount() != 1 {
		t.Fatalf("old client: %+v (sent %d)", res, impl.SentCount())
	}
	if asked["memo"] != 1 || asked["summary"] != 1 || asked["confirm"] != 1 {
		t.Fatalf("the client was asked %v, want memo, summary and confirm once each", asked)
	}
}

// A client that answers nothing interactively supplies every answer as
// an argument and completes in one call.
func TestClientSupplyingEveryInputUpFront(t *testing.T) {
	url, impl := serve(t)
	cs := connect(t, url, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}, "2025-11-25")
	args := map[string]any{"account": "acc-123", "amount": 40, "inputs": map[string]any{"memo": map[string]any{"note": "rent"}, "confirm": true}}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "transfer", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.NeedsInput() || impl.SentCount() != 1 {
		t.Fatalf("up-front inputs: %+v (sent %d)", res, impl.SentCount())
	}
}

// A 2026-07-28 client sees each round and drives it itself; tokens from
// the wire work like tokens from Run.
func TestNewClientRoundByRound(t *testing.T) {
	url, impl := serve(t)
	cs := connect(t, url, &mcp.ClientOptions{
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { panic("asked directly") },
	}, "")
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "transfer", Arguments: transferArgs})
	if err != nil || !res.NeedsInput() || res.InputRequests["memo"] == nil {
		t.Fatalf("round 1: %+v, %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "transfer", Arguments: transferArgs, RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{"memo": memo("rent")}})
	if err != nil || !res.NeedsInput() || res.InputRequests["confirm"] == nil {
		t.Fatalf("round 2: %+v, %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "transfer", Arguments: transferArgs, RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{"confirm": confirm(true)}})
	if err != nil || res.NeedsInput() || res.IsError || impl.SentCount() != 1 {
		t.Fatalf("round 3: %+v, %v", res, err)
	}
}

// A program that keeps its continuation server-side cannot be registered
// on an engine without a store: the server fails at start, not every round.
func TestReferenceProgramNeedsAStoreAtRegistration(t *testing.T) {
	clock := mrtrtest.NewClock()
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "a", Codec: mrtrtest.NewCodec(t, clock), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("registered a by-reference program without a store")
		}
	}()
	testprog.RegisterVault(mcp.NewServer(&mcp.Implementation{Name: "x", Version: "1"}, nil), e, &testprog.VaultImpl{})
}
