package conformance

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestTriggerToolChangeImpl implements TestTriggerToolChangeHandler for tool
// test_trigger_tool_change: it changes the server's tool list by adding a
// transient tool and removing it again, which makes the SDK notify
// subscribers (subscriptions/listen with toolsListChanged on 2026-07-28,
// every older session) with one notifications/tools/list_changed; the list
// ends as it was.
type TestTriggerToolChangeImpl struct {
	// Server is the server whose tool list changes. nil changes nothing.
	Server *mcp.Server
}

var _ TestTriggerToolChangeHandler = (*TestTriggerToolChangeImpl)(nil)

// transientTool is the tool briefly added by test_trigger_tool_change.
const transientTool = "test_transient_tool"

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestTriggerToolChangeImpl) Authorize(context.Context, *TestTriggerToolChangeFlow) error {
	return nil
}

// ChangeToolList adds and removes the transient tool.
func (h *TestTriggerToolChangeImpl) ChangeToolList(ctx context.Context, f *TestTriggerToolChangeFlow) error {
	if h.Server == nil {
		return nil
	}
	h.Server.AddTool(&mcp.Tool{
		Name:        transientTool,
		Description: "Exists only while test_trigger_tool_change runs.",
		InputSchema: map[string]any{"type": "object"},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "transient"}}}, nil
	})
	h.Server.RemoveTools(transientTool)
	return nil
}
