package mrtrimpl_test

import (
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// A question several states ask (spec questions:) is one key in two state
// rows; a round asking it lists it once, or a client without MRTR would be
// asked it twice over its session.
func TestRequestOrderListsAQuestionOnce(t *testing.T) {
	reason := mrtrimpl.RequestInfo{Key: "reason", Kind: vocab.Elicit}
	d := &mrtrimpl.Descriptor{Name: "close_account", States: []mrtrimpl.StateInfo{
		{Name: "askFree", Kind: vocab.StateAsk, Requests: []mrtrimpl.RequestInfo{reason}},
		{Name: "askPaid", Kind: vocab.StateAsk, Requests: []mrtrimpl.RequestInfo{reason, {Key: "refund", Kind: vocab.Elicit}}},
	}}
	reqs := mcp.InputRequestMap{"refund": &mcp.ElicitParams{}, "reason": &mcp.ElicitParams{}, "stray": &mcp.ElicitParams{}}
	if got, want := d.RequestOrder(reqs), []string{"reason", "refund", "stray"}; !slices.Equal(got, want) {
		t.Fatalf("RequestOrder = %v, want %v", got, want)
	}
	if q := d.Request("reason"); q == nil || q.Key != "reason" {
		t.Fatalf("Request(reason) = %v", q)
	}
}
