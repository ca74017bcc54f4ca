package mrtrtest

import (
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
)

// gateAnswer is the answer to gate q that confirms it (yes) or refuses
// it: a yes/no gate's boolean; for a typed confirmation, the text its
// question asks for (read from the question the client was sent, asked;
// nil when it was not sent), and refusing declines the form.
func gateAnswer(q *mrtrimpl.RequestInfo, asked mcp.InputRequest, yes bool) mcp.InputResponse {
	if !q.Typed {
		return Accept(map[string]any{q.GateField: yes})
	}
	if !yes {
		return Decline()
	}
	return Accept(map[string]any{q.GateField: typedWant(q, asked)})
}

// typedWant is the text typed confirmation q asks for in asked ("" when
// asked is not its question).
func typedWant(q *mrtrimpl.RequestInfo, asked mcp.InputRequest) string {
	if p, ok := asked.(*mcp.ElicitParams); ok {
		if want, ok := mrtrimpl.X.TypedWant(p.RequestedSchema, q.GateField); ok {
			return want
		}
	}
	return ""
}

// typeGates makes a script's confirmations of typed gates what their
// questions ask for: a gate of d answered {field: true} is answered with
// the text the previous reply asks for, {field: false} declines. Other
// answers, and answers to a question not asked, are left as they are.
func typeGates(d *mrtrimpl.Descriptor, asked mcp.InputRequestMap, send mcp.InputResponseMap) mcp.InputResponseMap {
	var out mcp.InputResponseMap
	for key, resp := range send {
		q := requestNamed(d, key)
		if q == nil || !q.Typed {
			continue
		}
		r, ok := resp.(*mcp.ElicitResult)
		if !ok || r.Action != "accept" || len(r.Content) != 1 {
			continue
		}
		yes, isBool := r.Content[q.GateField].(bool)
		if !isBool {
			continue
		}
		if _, sent := asked[key]; !sent && yes {
			continue
		}
		if out == nil {
			out = maps.Clone(send)
		}
		out[key] = gateAnswer(q, asked[key], yes)
	}
	if out == nil {
		return send
	}
	return out
}
