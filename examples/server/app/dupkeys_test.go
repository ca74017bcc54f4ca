package app

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
)

// TestDuplicateKeysRefused: a JSON text with an object key twice is
// refused with -32602 naming the key and where it was, wherever the key
// is (the arguments, inputResponses, an answer's content however deep,
// _meta), and the confirmation gate it tried to pass does not open: the
// invoice is not charged. The same final round without the duplicate
// charges it once.
func TestDuplicateKeysRefused(t *testing.T) {
	s := start(t, "memory:", testRing(t), "test-1")
	ctx := context.Background()
	cs := connect(t, s.URL, nil, "")
	r1, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "charge_payment", Arguments: map[string]any{"invoiceId": "inv_1001"}})
	if err != nil || !r1.NeedsInput() || r1.InputRequests["confirm"] == nil {
		t.Fatalf("round 1: %+v, %v", r1, err)
	}
	const (
		args     = `{"invoiceId":"inv_1001"}`
		accepted = `{"confirm":{"action":"accept","content":{"confirm":true}}}`
		meta     = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	)
	final := func(args, answers, meta string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"charge_payment","arguments":%s,"inputResponses":%s,"requestState":%q,"_meta":%s}}`,
			args, answers, r1.RequestState, meta)
	}
	for _, c := range []struct {
		name, body string
		code       int64
		message    string
	}{
		{"answers", final(args, `{"confirm":{"action":"decline"},"confirm":{"action":"accept","content":{"confirm":true}}}`, meta),
			-32602, `inputResponses: duplicate key "confirm"`},
		{"answer", final(args, `{"confirm":{"action":"decline","action":"accept","content":{"confirm":true}}}`, meta),
			-32602, `inputResponses.confirm: duplicate key "action"`},
		{"content", final(args, `{"confirm":{"action":"accept","content":{"confirm":false,"confirm":true}}}`, meta),
			-32602, `inputResponses.confirm.content: duplicate key "confirm"`},
		{"nested content", final(args, `{"confirm":{"action":"accept","content":{"confirm":true,"note":{"by":"a","list":[{"by":"b","by":"c"}]}}}}`, meta),
			-32602, `inputResponses.confirm.content.note.list[0]: duplicate key "by"`},
		{"arguments", final(`{"invoiceId":"inv_1003","invoiceId":"inv_1001"}`, accepted, meta),
			-32602, `arguments: duplicate key "invoiceId"`},
		{"meta", final(args, accepted, `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"progressToken":1,"progressToken":2}`),
			-32602, `_meta: duplicate key "progressToken"`},
		{"meta member", final(args, accepted, `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"elicitation":{"form":{}}}}`),
			-32602, `_meta["io.modelcontextprotocol/clientCapabilities"]: duplicate key "elicitation"`},
		{"params", strings.Replace(final(args, accepted, meta), `"requestState":`, `"inputResponses":{},"requestState":`, 1),
			-32602, `params: duplicate key "inputResponses"`},
		{"envelope", strings.Replace(final(args, accepted, meta), `"method":"tools/call"`, `"method":"tools/list","method":"tools/call"`, 1),
			-32600, `request: duplicate key "method"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, reply := postRaw(t, s.URL, c.body)
			if reply.Error == nil || reply.Error.Code != c.code || reply.Error.Message != c.message {
				t.Fatalf("HTTP %d, reply %+v; want error %d %q", status, reply, c.code, c.message)
			}
			if inv, _, err := domain.Load[domain.Invoice](ctx, s.Data, domain.InvoiceKey("inv_1001")); err != nil || inv.Status == "paid" {
				t.Fatalf("after a refused round the invoice is %+v (%v): the gate opened", inv, err)
			}
		})
	}
	// The round without duplicates is served as ever, and charges once.
	status, reply := postRaw(t, s.URL, final(args, accepted, meta))
	if status != http.StatusOK || reply.Error != nil || !strings.Contains(string(reply.Result), "Charged") {
		t.Fatalf("the final round without duplicates: HTTP %d, %+v", status, reply)
	}
	if n, err := domain.Effects(ctx, s.Data, "charge_payment", "inv_1001"); err != nil || n != 1 {
		t.Fatalf("charged %d times (%v), want once", n, err)
	}
}

type rawReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// postRaw posts body as a 2026-07-28 client would and decodes its reply,
// plain JSON or one event of a stream.
func postRaw(t *testing.T, url, body string) (int, rawReply) {
	t.Helper()
	status, header, raw := postMCP(t, url, body, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "charge_payment")
	if strings.HasPrefix(header.Get("Content-Type"), "text/event-stream") {
		for line := range strings.SplitSeq(string(raw), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				raw = []byte(data)
			}
		}
	}
	var reply rawReply
	if err := json.Unmarshal(raw, &reply); err != nil {
		t.Fatalf("HTTP %d: %v: %s", status, err, raw)
	}
	return status, reply
}

// TestDuplicateKeysInAnOlderClientsAnswer: an older client answers the
// confirmation asked over its session with a content that has a key
// twice; the engine gets that answer as an error, the call ends with
// -32602 naming the key, and the invoice is not charged.
func TestDuplicateKeysInAnOlderClientsAnswer(t *testing.T) {
	s := start(t, "memory:", testRing(t), "legacy")
	session := ""
	send := func(body string) *http.Response {
		t.Helper()
		version := ""
		if session != "" {
			version = "2025-11-25"
		}
		resp := sendMCP(t, s.URL, body, "Mcp-Session-Id", session, "Mcp-Protocol-Version", version)
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	init := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}`) //nolint:bodyclose // send closes every body at the test's end (t.Cleanup)
	if session = init.Header.Get("Mcp-Session-Id"); session == "" {
		t.Fatalf("initialize: HTTP %d, no session", init.StatusCode)
	}
	_, _ = io.Copy(io.Discard, init.Body)                          // drained for the session; a failed read shows in the next request
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`) //nolint:bodyclose // send closes every body at the test's end (t.Cleanup)

	call := send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"charge_payment","arguments":{"invoiceId":"inv_1001"}}}`) //nolint:bodyclose // send closes every body at the test's end (t.Cleanup)
	events := bufio.NewScanner(call.Body)
	next := func() map[string]json.RawMessage {
		t.Helper()
		for events.Scan() {
			if data, ok := strings.CutPrefix(events.Text(), "data: "); ok {
				var msg map[string]json.RawMessage
				if err := json.Unmarshal([]byte(data), &msg); err != nil {
					t.Fatalf("event %s: %v", data, err)
				}
				return msg
			}
		}
		t.Fatalf("the call's stream ended: %v", events.Err())
		return nil
	}
	ask := next()
	if string(ask["method"]) != `"elicitation/create"` {
		t.Fatalf("asked %s, want elicitation/create", ask["method"])
	}
	answer := send(`{"jsonrpc":"2.0","id":` + string(ask["id"]) + `,"result":{"action":"accept","content":{"confirm":false,"confirm":true}}}`) //nolint:bodyclose // send closes every body at the test's end (t.Cleanup)
	if answer.StatusCode != http.StatusAccepted {
		t.Fatalf("posting the answer: HTTP %d", answer.StatusCode)
	}
	reply := next()
	var rpcErr struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(reply["error"], &rpcErr); err != nil || rpcErr.Code != -32602 || rpcErr.Message != `result.content: duplicate key "confirm"` {
		t.Fatalf("the call's reply: %s %s", reply["error"], reply["result"])
	}
	if inv, _, err := domain.Load[domain.Invoice](context.Background(), s.Data, domain.InvoiceKey("inv_1001")); err != nil || inv.Status == "paid" {
		t.Fatalf("the invoice is %+v (%v): the gate opened", inv, err)
	}
}
