package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSlowBodiesAreCut: 300 connections that send a request body a byte
// at a time are each answered 408 and closed once the configured
// ReadTimeout has passed, while the server keeps answering other clients.
func TestSlowBodiesAreCut(t *testing.T) {
	const conns = 300
	readTimeout := time.Second
	slack := 2 * time.Second // 300 handlers time out at once on a shared 2-core machine
	s := startConfig(t, Config{StoreURL: "memory:", Ring: testRing(t), Audience: "app-test", Instance: "slow", Logger: quiet(),
		ReadTimeout: readTimeout})
	addr := strings.TrimPrefix(s.base, "http://")

	type outcome struct {
		status string
		held   time.Duration
		err    error
	}
	outcomes := make(chan outcome, conns)
	stop := make(chan struct{})
	var writers sync.WaitGroup
	for range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		began := time.Now()
		// The test never waits longer than this for the server to let go.
		_ = c.SetReadDeadline(began.Add(readTimeout + slack + 5*time.Second)) // a failed deadline shows as a read that outlives the test's bound
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
			"Mcp-Protocol-Version: 2026-07-28\r\nContent-Length: 4096\r\n\r\n{", MCPPath, addr)
		writers.Go(func() {
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					if _, err := c.Write([]byte(" ")); err != nil {
						return
					}
				}
			}
		})
		go func() {
			status, _ := bufio.NewReader(c).ReadString('\n')
			_, err := io.Copy(io.Discard, c) // until the server closes the connection
			outcomes <- outcome{strings.TrimSpace(status), time.Since(began), err}
		}()
	}
	defer writers.Wait()
	defer close(stop)

	// Meanwhile other clients are served: a 2026-07-28 round and the probe.
	cs := connect(t, s.URL, nil, "")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "close_support_ticket", Arguments: map[string]any{"ticketId": "12345"}})
	if err != nil || !res.NeedsInput() {
		t.Fatalf("a round while slow bodies are held: %+v, %v", res, err)
	}
	resp, err := http.Get(s.base + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz while slow bodies are held: %v, %v", resp, err)
	}
	resp.Body.Close()

	var late []outcome
	reset := 0
	for range conns {
		o := <-outcomes
		// The server may reset a connection whose client is still
		// writing; only the test's own deadline means it held on.
		var ne net.Error
		heldOn := errors.As(o.err, &ne) && ne.Timeout()
		if heldOn || o.held > readTimeout+slack || (o.status != "HTTP/1.1 408 Request Timeout" && o.status != "") {
			late = append(late, o)
		}
		if o.status == "" {
			reset++
		}
	}
	if len(late) > 0 {
		t.Fatalf("%d of %d slow-body connections not answered 408 and closed within %v + %v; the first: %+v",
			len(late), conns, readTimeout, slack, late[0])
	}
	t.Logf("%d connections answered 408 and closed, %d reset before the answer was read", conns-reset, reset)
}

// TestBodyLimit: a request body over Config.MaxRequestBytes is refused
// with 413 and says so, before any of it is decoded; one within it is
// served.
func TestBodyLimit(t *testing.T) {
	s := startConfig(t, Config{StoreURL: "memory:", Ring: testRing(t), Audience: "app-test", Instance: "limit", Logger: quiet(),
		MaxRequestBytes: 64 << 10})
	call := func(pad int) (int, string) {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"pad":"` + strings.Repeat("x", pad) + `"}}}`
		status, _, b := postMCP(t, s.URL, body, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list")
		return status, string(b)
	}
	if status, body := call(64 << 10); status != http.StatusRequestEntityTooLarge || !strings.Contains(body, "request body exceeds 65536 bytes") {
		t.Fatalf("a body over the limit: HTTP %d %q", status, body)
	}
	if status, body := call(32 << 10); status != http.StatusOK || !strings.Contains(body, "close_support_ticket") {
		t.Fatalf("a body within the limit: HTTP %d %.200q", status, body)
	}
}

// TestWriteTimeoutPerWrite: with a WriteTimeout shorter than a round, the
// round's reply still arrives (a slow effect), and so does an older
// client's call whose question the user answers after it (an event
// stream): mrtr.Handler makes the timeout bound each write, not the reply.
func TestWriteTimeoutPerWrite(t *testing.T) {
	writeTimeout := 300 * time.Millisecond
	s := startConfig(t, Config{StoreURL: "memory:", Ring: testRing(t), Audience: "app-test", Instance: "write", Logger: quiet(),
		WriteTimeout: writeTimeout, EffectDelay: 3 * writeTimeout})
	ctx := context.Background()
	cs := connect(t, s.URL, nil, "")
	args := map[string]any{"ticketId": "12345"}
	r1, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "close_support_ticket", Arguments: args})
	if err != nil || !r1.NeedsInput() {
		t.Fatalf("round 1: %+v, %v", r1, err)
	}
	r2, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "close_support_ticket", Arguments: args, InputResponses: reason, RequestState: r1.RequestState})
	if err != nil || text(t, r2) != "Closed ticket 12345 (resolved)." {
		t.Fatalf("a round longer than WriteTimeout: %+v, %v", r2, err)
	}

	older := connect(t, s.URL, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			time.Sleep(3 * writeTimeout) // the user thinks
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"closeReason": "duplicate"}}, nil
		},
	}, "2025-11-25")
	res, err := older.CallTool(ctx, &mcp.CallToolParams{Name: "close_support_ticket", Arguments: map[string]any{"ticketId": "12346"}})
	if err != nil || text(t, res) != "Closed ticket 12346 (duplicate)." {
		t.Fatalf("an older client's call answered after WriteTimeout: %+v, %v", res, err)
	}
}
