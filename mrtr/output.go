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
func toolResult(d *mrtrimpl.Descriptor, f *mrtrimpl.Final) *mcp.CallToolResult {
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: f.Text}}, IsError: f.IsError()}
	switch {
	case f.Structured != nil:
		res.StructuredContent = f.Structured
	case d.OutputSchema != nil && !f.IsError():
		res.StructuredContent = json.RawMessage(`{}`)
	}
	return res
}
