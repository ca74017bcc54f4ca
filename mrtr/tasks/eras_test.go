package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/taskstest"
)

// The extension is a 2026-07-28 one: a client on a 2025-11-25 session
// that declares it anyway is served as one that does not. Its initialize
// result does not offer it, an Optional tool runs synchronously (a plain
// CallToolResult; no task that nobody would poll), a Required one is
// refused with -32021 naming the extension and the protocol it needs.
func TestOlderSessionDeclaringTheExtension(t *testing.T) {
	m, err := tasks.New(tasks.Config{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(context.Background()) })
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	if err := m.Install(s); err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"type": "object"}
	var ran int
	run := func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return tasks.Start(ctx, func(context.Context, *tasks.Run) (*mcp.CallToolResult, error) {
			ran++
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	}
	m.AddTool(s, &mcp.Tool{Name: "maybe", InputSchema: schema}, tasks.Optional, tasks.ToolOptions{}, run)
	m.AddTool(s, &mcp.Tool{Name: "only", InputSchema: schema}, tasks.Required, tasks.ToolOptions{}, run)

	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(tasks.ExtensionID, nil)
	c := mcp.NewClient(&mcp.Implementation{Name: "legacy", Version: "1"}, &mcp.ClientOptions{Capabilities: caps})
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	init := cs.InitializeResult()
	if init.ProtocolVersion != "2025-11-25" {
		t.Fatalf("negotiated %s", init.ProtocolVersion)
	}
	if init.Capabilities != nil && init.Capabilities.Extensions[tasks.ExtensionID] != nil {
		t.Errorf("initialize on 2025-11-25 offers the extension: %v", init.Capabilities.Extensions)
	}

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "maybe", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := json.Marshal(res); len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "done" || ran != 1 {
		t.Fatalf("optional tool on 2025-11-25: %s (ran %d)", raw, ran)
	}

	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "only", Arguments: map[string]any{}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeMissingRequiredClientCapabilities {
		t.Fatalf("required tool on 2025-11-25: %v", err)
	}
	if err := taskstest.RequiresExtension(je.Data); err != nil {
		t.Fatal(err)
	}
	if want := "the " + tasks.ExtensionID + " extension needs protocol 2026-07-28 or later; this request is on 2025-11-25"; je.Message != want {
		t.Errorf("message %q, want %q", je.Message, want)
	}
	if ran != 1 {
		t.Errorf("the required tool ran (%d runs)", ran)
	}
}
