package mrtrtest

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
)

// structuredProblem says what is wrong with the structured result of
// final reply ("" when nothing): a result that is not an error, of a tool
// with an outputSchema, must conform to it (a state without output sends
// an empty object), and one that ended in a state declaring output must
// carry it. A replayed reply has no path: only its conformance is checked.
func structuredProblem(d *mrtrimpl.Descriptor, reply *mrtr.Reply) string {
	if reply == nil || reply.NeedsInput() || reply.Final == nil || reply.Final.IsError() {
		return ""
	}
	f := reply.Final
	if d.OutputSchema == nil {
		if f.Structured != nil {
			return fmt.Sprintf("a structured result %s from a tool without an outputSchema", f.Structured)
		}
		return ""
	}
	if n := len(reply.Path); n > 0 {
		if s := stateNamed(d, reply.Path[n-1]); s != nil && s.Output && f.Structured == nil {
			return fmt.Sprintf("no structured result from state %s, which declares output", s.Name)
		}
	}
	doc := f.Structured
	if doc == nil {
		doc = json.RawMessage(`{}`)
	}
	sch, err := jsonschema.CompileString(d.Name+".output.json", string(d.OutputSchema))
	if err != nil {
		return fmt.Sprintf("the outputSchema of %s does not compile: %v", d.Name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Sprintf("the structured result %s is not JSON: %v", doc, err)
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Sprintf("the structured result %s does not conform to the outputSchema: %v", doc, err)
	}
	return ""
}

// wireStructuredProblem is structuredProblem for a result as a client
// received it: a tool with an outputSchema sends structuredContent with
// every result that is not an error, and it conforms; a tool without one
// sends none.
func wireStructuredProblem(d *mrtrimpl.Descriptor, res *mcp.CallToolResult) string {
	if res.IsError {
		return ""
	}
	if res.StructuredContent == nil {
		if d.OutputSchema != nil {
			return "a result without structuredContent from a tool with an outputSchema"
		}
		return ""
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return fmt.Sprintf("structuredContent that is not JSON: %v", err)
	}
	return structuredProblem(d, &mrtr.Reply{Final: &mrtr.Final{Outcome: mrtr.OutcomeSuccess, Structured: b}})
}
