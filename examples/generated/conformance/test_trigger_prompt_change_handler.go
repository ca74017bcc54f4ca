package conformance

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestTriggerPromptChangeImpl implements TestTriggerPromptChangeHandler for
// tool test_trigger_prompt_change: it adds a transient prompt and removes it
// again, so subscribers get one notifications/prompts/list_changed (see
// TestTriggerToolChangeImpl).
type TestTriggerPromptChangeImpl struct {
	// Server is the server whose prompt list changes. nil changes nothing.
	Server *mcp.Server
}

var _ TestTriggerPromptChangeHandler = (*TestTriggerPromptChangeImpl)(nil)

// transientPrompt is the prompt briefly added by test_trigger_prompt_change.
const transientPrompt = "test_transient_prompt"

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestTriggerPromptChangeImpl) Authorize(context.Context, *TestTriggerPromptChangeFlow) error {
	return nil
}

// ChangePromptList adds and removes the transient prompt.
func (h *TestTriggerPromptChangeImpl) ChangePromptList(ctx context.Context, f *TestTriggerPromptChangeFlow) error {
	if h.Server == nil {
		return nil
	}
	h.Server.AddPrompt(&mcp.Prompt{
		Name:        transientPrompt,
		Description: "Exists only while test_trigger_prompt_change runs.",
	}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "transient"}}}}, nil
	})
	h.Server.RemovePrompts(transientPrompt)
	return nil
}
