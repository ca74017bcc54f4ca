package mrtr

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
)

// toolResult is the CallToolResult of a finished tool workflow: the
// result text, and, for a tool with an outputSchema, its structured result
// (structuredContent). A result that is not an error conforms to the
// schema: a state that declares no output sends an empty object, which
// the schema allows (it requires only what every such state sets). Error
// results (failed, rejected, dependency failures) carry none: clients do
// not check them against the schema.
func toolResult(d *mrtrimpl.Descriptor, f *Final) *mcp.CallToolResult {
	// The text first, then the declared content items; a result of content
	// items only (a spec without message) has no empty text.
	content := []mcp.Content{}
	if f.Text != "" || len(f.Content) == 0 {
		content = append(content, &mcp.TextContent{Text: f.Text})
	}
	for _, c := range f.Content {
		content = append(content, c.MCP())
	}
	res := &mcp.CallToolResult{Content: content, IsError: f.IsError()}
	switch {
	case f.Structured != nil:
		res.StructuredContent = f.Structured
	case d.OutputSchema != nil && !f.IsError():
		res.StructuredContent = json.RawMessage(`{}`)
	}
	return res
}
