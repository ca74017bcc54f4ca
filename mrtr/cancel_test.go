package mrtr_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// sessionClient speaks raw JSON-RPC to mrtr.Handler on a 2025-11-25
// stateful session: it sees every event of a call's stream, which the
// go-sdk client stops reading once it cancels the call.
type sessionClient struct {
	t       *testing.T
	url, id string
}

// event is one JSON-RPC message of an event stream.
type event struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw string
}

func (c *sessionClient) post(body string) *http.Response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if c.id != "" {
		req.Header.Set("Mcp-Session-Id", c.id)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// events reads the messages of resp's event stream into a channel, closed
// at the stream's end.
func events(resp *http.Response) <-chan event {
	ch := make(chan event, 16)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			ev := event{raw: data}
			_ = json.Unmarshal([]byte(data), &ev)
			ch <- ev
		}
	}()
	return ch
}

// newSessionClient initializes a 2025-11-25 session that declares
// elicitation.
func newSessionClient(t *testing.T, url string) *sessionClient {
	c := &sessionClient{t: t, url: url}
	resp := c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"raw","version":"1"}}}`) //nolint:bodyclose // post closes every body at the test's end (t.Cleanup)
	c.id = resp.Header.Get("Mcp-Session-Id")
	if c.id == "" {
		t.Fatalf("no session: %s", resp.Status)
	}
	for range events(resp) {
	}
	if r := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.StatusCode != http.StatusAccepted { //nolint:bodyclose // post closes every body at the test's end (t.Cleanup)
		t.Fatalf("initialized: %s", r.Status)
	}
	return c
}

// A call cancelled with notifications/cancelled while the engine asks the
// older client over its session gets no response at all (the spec: the
// receiver does not answer a cancelled request), in particular not the
// code-0 error "asking the client for ...: context canceled"; its effect
// does not run; and the session goes on serving.
func TestCancelledCallGetsNoResponse(t *testing.T) {
	url, impl := serve(t)
	c := newSessionClient(t, url)
	stream := events(c.post(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"transfer","arguments":{"account":"acc-123","amount":40}}}`)) //nolint:bodyclose // post closes every body at the test's end (t.Cleanup)
	select {
	case ev, ok := <-stream:
		if !ok || ev.Method != "elicitation/create" {
			t.Fatalf("first event %q (open %v), want the engine's question", ev.raw, ok)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the engine did not ask")
	}
	if r := c.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"the user pressed stop"}}`); r.StatusCode != http.StatusAccepted { //nolint:bodyclose // post closes every body at the test's end (t.Cleanup)
		t.Fatalf("cancelled: %s", r.Status)
	}
	timeout := time.After(5 * time.Second)
	for open := true; open; {
		select {
		case ev, ok := <-stream:
			if !ok {
				open = false
				break
			}
			if string(ev.ID) == "7" && (ev.Result != nil || ev.Error != nil) {
				t.Errorf("the cancelled call was answered: %s", ev.raw)
			}
			if ev.Error != nil && ev.Error.Code == 0 {
				t.Errorf("a code-0 error: %s", ev.raw)
			}
		case <-timeout:
			t.Fatal("the cancelled call's stream did not end")
		}
	}
	if n := impl.SentCount(); n != 0 {
		t.Fatalf("the cancelled transfer was sent %d times", n)
	}
	// The session still serves: a call that is not cancelled is answered.
	for ev := range events(c.post(`{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{}}`)) { //nolint:bodyclose // post closes every body at the test's end (t.Cleanup)
		if string(ev.ID) != "8" || ev.Result == nil {
			t.Fatalf("tools/list after the cancel: %s", ev.raw)
		}
	}
}

// Every error a server with mrtr's tools sends has a JSON-RPC code, also
// one a hand-written handler next to them returns without one (go-sdk
// would send it with code 0): -32603 with its text.
func TestEveryErrorHasACode(t *testing.T) {
	clock := mrtrtest.NewClock()
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "codes-test", Codec: mrtrtest.NewCodec(t, clock), Logger: quiet,
		Store: store.NewMemory(store.Options{Now: clock.Now})})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "codes-test", Version: "test"}, nil)
	testprog.RegisterTransfer(s, e, &testprog.TransferImpl{})
	s.AddTool(&mcp.Tool{Name: "plain", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("disk on fire")
		})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "plain", Arguments: map[string]any{}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError || je.Message != "disk on fire" {
		t.Fatalf("plain error: %v (%#v)", err, je)
	}
}

// On a transport mrtr.Handler does not serve (stdio, in memory), go-sdk
// v1.8.0 answers a cancelled call whatever the server does; that answer
// has a code: -32800, request cancelled, never code 0 with the text of
// the context's error.
func TestCancelledCallOverATransportHasACode(t *testing.T) {
	clock := mrtrtest.NewClock()
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "cancel-test", Codec: mrtrtest.NewCodec(t, clock), Logger: quiet,
		Store: store.NewMemory(store.Options{Now: clock.Now})})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "cancel-test", Version: "test"}, nil)
	impl := &testprog.TransferImpl{}
	testprog.RegisterTransfer(s, e, impl)
	ct, st := mcp.NewInMemoryTransports()
	sent := &lines{}
	ss, err := s.Connect(context.Background(), &mcp.LoggingTransport{Transport: st, Writer: sent}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ectx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			cancel() // the user stops the call while it asks
			<-ectx.Done()
			return nil, ectx.Err()
		},
	})
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "transfer", Arguments: transferArgs}); err == nil {
		t.Fatal("the cancelled call succeeded")
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(sent.String(), `"id":2,"error"`) {
		if time.Now().After(deadline) {
			t.Fatalf("no answer to the call:\n%s", sent)
		}
		time.Sleep(10 * time.Millisecond)
	}
	got := sent.String()
	if !strings.Contains(got, `write: {"jsonrpc":"2.0","id":2,"error":{"code":-32800,"message":"request cancelled"}}`) {
		t.Fatalf("the server wrote:\n%s", got)
	}
	// (The go-sdk client answers the server's cancelled question with a
	// code 0 of its own: a read line, not the server's.)
	for line := range strings.SplitSeq(got, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "write:") && strings.Contains(line, `"code":0`) {
			t.Errorf("the server wrote a code-0 error: %s", line)
		}
	}
	if n := impl.SentCount(); n != 0 {
		t.Fatalf("the cancelled transfer was sent %d times", n)
	}
}

// lines is an io.Writer safe for concurrent writes.
type lines struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
