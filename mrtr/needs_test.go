package mrtr_test

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

// A capability every way through a workflow needs is refused at the first
// round, before any question, check or effect (issue 27, item 4); one only
// some ways need is refused only when the workflow takes such a way.
func TestEveryPathNeedsRefusedUpFront(t *testing.T) {
	t.Run("every way asks the model", func(t *testing.T) {
		impl := &testprog.DigestImpl{}
		h := mrtrtest.New(t, testprog.NewDigestProgram(impl))
		h.Capabilities = mrtrtest.Capabilities("elicitation") // no sampling
		reply, err := h.Call(context.Background(), map[string]any{"doc": "d-1"}, "", nil)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != -32021 {
			t.Fatalf("round 1: want -32021, got reply %+v, error %v", reply, err)
		}
		if string(je.Data) != `{"requiredCapabilities":{"sampling":{}}}` {
			t.Fatalf("data %s, want requiredCapabilities sampling", je.Data)
		}
		if c, n := impl.Checks.Load(), impl.Notes.Load(); c != 0 || n != 0 {
			t.Fatalf("the check ran %d times and the effect %d times before the refusal; want none", c, n)
		}
	})
	t.Run("a client with sampling is served", func(t *testing.T) {
		impl := &testprog.DigestImpl{}
		h := mrtrtest.New(t, testprog.NewDigestProgram(impl))
		h.Capabilities = mrtrtest.Capabilities("elicitation", "sampling")
		r1 := call(t, h, map[string]any{"doc": "d-1"}, "", nil)
		r2 := call(t, h, map[string]any{"doc": "d-1"}, r1.RequestState, mcp.InputResponseMap{"length": mrtrtest.Accept(map[string]any{"words": 50})})
		r3 := call(t, h, map[string]any{"doc": "d-1"}, r2.RequestState, mcp.InputResponseMap{"digest": mrtrtest.Text("Short.")})
		if r3.NeedsInput() || r3.Final.Outcome != mrtr.OutcomeSuccess || impl.Notes.Load() != 1 {
			t.Fatalf("with sampling: %+v (effect ran %d times)", r3, impl.Notes.Load())
		}
	})
	t.Run("only one way asks the model", func(t *testing.T) {
		impl := &testprog.DraftImpl{}
		h := mrtrtest.New(t, testprog.NewDraftProgram(impl))
		h.Capabilities = mrtrtest.Capabilities("elicitation") // no sampling
		args := map[string]any{"topic": "the outage"}
		r1 := call(t, h, args, "", nil)
		if r1.InputRequests["mode"] == nil {
			t.Fatalf("round 1: want the mode asked, got %+v", r1)
		}
		// By hand: no model on this way, the workflow ends.
		r2 := call(t, h, args, r1.RequestState, mcp.InputResponseMap{"mode": mrtrtest.Accept(map[string]any{"by": "hand"})})
		r3 := call(t, h, args, r2.RequestState, mcp.InputResponseMap{"text": mrtrtest.Accept(map[string]any{"body": "Sorry."})})
		if r3.NeedsInput() || r3.Final.Outcome != mrtr.OutcomeSuccess {
			t.Fatalf("by hand: %+v", r3)
		}
		// With the model: refused where the model is asked, as before.
		_, err := h.Call(context.Background(), args, r1.RequestState, mcp.InputResponseMap{"mode": mrtrtest.Accept(map[string]any{"by": "model"})})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != -32021 || string(je.Data) != `{"requiredCapabilities":{"sampling":{}}}` {
			t.Fatalf("with the model: want -32021 naming sampling, got %v", err)
		}
	})
	t.Run("a way to a failed end without the capability", func(t *testing.T) {
		// transfer asks for a memo (elicitation) only when the account is
		// open; a frozen account ends failed without asking. A client that
		// cannot answer forms is not refused up front: the check decides.
		impl := &testprog.TransferImpl{}
		impl.Frozen.Store(true)
		h := mrtrtest.New(t, testprog.NewTransferProgram(impl))
		h.Capabilities = nil
		reply := call(t, h, transferArgs, "", nil)
		if reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeFailed {
			t.Fatalf("frozen account, client without forms: %+v, want the failed end", reply)
		}
	})
}
