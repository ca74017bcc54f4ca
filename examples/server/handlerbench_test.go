package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/examples/internal/benchtickets"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// BenchmarkFinalRoundHandler is the final round of close_support_ticket
// through mrtr.Handler without a network: the request's bytes as a
// 2026-07-28 client sends them, ServeHTTP on a recorder. Against
// BenchmarkRoundInProcess it adds what Handler and the SDK do with the
// bytes (reading the body, the duplicate-key check, the JSON-RPC decoding
// and encoding).
//
//	go test ./examples/server -run '^$' -bench BenchmarkFinalRoundHandler -benchtime 2000x -count 3
func BenchmarkFinalRoundHandler(b *testing.B) {
	h := mrtr.Handler(generatedServer(&benchtickets.Business{}, store.NewMemory(store.Options{})), nil)
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	serve := func(body string) []byte {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "close_support_ticket")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
		}
		return rec.Body.Bytes()
	}
	answers, err := json.Marshal(benchAnswer)
	if err != nil {
		b.Fatal(err)
	}
	finals := make([]string, b.N)
	for i := range finals {
		args := `{"ticketId":"` + strconv.FormatInt(500000+ticketSeq.Add(1), 10) + `"}`
		var first struct {
			Result struct {
				RequestState string `json:"requestState"`
			} `json:"result"`
		}
		out := serve(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"close_support_ticket","arguments":` + args + `,` + meta + `}}`)
		if err := json.Unmarshal(out, &first); err != nil || first.Result.RequestState == "" {
			b.Fatalf("first round: %s (%v)", out, err)
		}
		finals[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"close_support_ticket","arguments":%s,"inputResponses":%s,"requestState":%q,%s}}`,
			args, answers, first.Result.RequestState, meta)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := range b.N {
		if out := serve(finals[i]); !strings.Contains(string(out), "Closed ticket") {
			b.Fatalf("final round: %s", out)
		}
	}
	if c := cpuTime(); c > 0 {
		b.ReportMetric(float64(c-cpu)/float64(b.N), "cpu-ns/op")
	}
}
