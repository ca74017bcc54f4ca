package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/taskstest"
)

// wire is an io.Writer safe for the concurrent writes of a
// LoggingTransport: the client's view of every message, both ways.
type wire struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *wire) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *wire) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// legacyTasksClient connects the go-sdk client on protocol 2025-11-25,
// declaring the tasks extension next to elicitation (as the Inspector's
// legacy mode does), with elicit answering its questions; what crosses
// the wire is logged to the returned wire.
func legacyTasksClient(t *testing.T, url string, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) (*mcp.ClientSession, *wire) {
	t.Helper()
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(tasks.ExtensionID, nil)
	c := mcp.NewClient(&mcp.Implementation{Name: "legacy-tasks", Version: "test"}, &mcp.ClientOptions{
		Capabilities: caps, ElicitationHandler: elicit,
	})
	w := &wire{}
	cs, err := c.Connect(context.Background(), &mcp.LoggingTransport{Transport: &mcp.StreamableClientTransport{Endpoint: url}, Writer: w},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Fatalf("negotiated %s", v)
	}
	if cs.ID() == "" {
		t.Fatal("no stateful session")
	}
	return cs, w
}

// TestOlderSessionDeclaringTasksRunsInItsRounds: a 2025-11-25 client that
// declares the 2026-07-28 tasks extension gets no task (that era has no
// resultType): deploy_release runs in the session's rounds, asking both
// questions over the session, and its tools/call gets the CallToolResult
// of the whole deployment; nothing of it runs in a task nobody sees. The
// initialize result does not offer the extension.
func TestOlderSessionDeclaringTasksRunsInItsRounds(t *testing.T) {
	s := start(t, "memory:", testRing(t), "eras")
	ctx := context.Background()
	var asked []string
	cs, w := legacyTasksClient(t, s.URL, func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = append(asked, req.Params.Message)
		if strings.Contains(req.Params.Message, "canary") && strings.Contains(req.Params.Message, "healthy") {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"action": "promote"}}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
	})
	if caps := cs.InitializeResult().Capabilities; caps != nil && caps.Extensions[tasks.ExtensionID] != nil {
		t.Errorf("the 2025-11-25 initialize result offers the tasks extension: %v", caps.Extensions)
	}
	// The raw initialize result too, in case the SDK's struct dropped a key.
	for line := range strings.SplitSeq(w.String(), "\n") {
		if strings.Contains(line, `"serverInfo"`) && strings.Contains(line, tasks.ExtensionID) {
			t.Errorf("the 2025-11-25 initialize result offers the tasks extension: %s", line)
		}
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "deploy_release", Arguments: map[string]any{"service": "docs-site", "version": "v2.1.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); res.IsError || got != "Deployed docs-site v2.1.0 to production." {
		t.Fatalf("tools/call: %q (isError %v); asked %q", got, res.IsError, asked)
	}
	if len(asked) != 2 {
		t.Fatalf("asked %d questions over the session: %q", len(asked), asked)
	}
	for _, bad := range []string{`"resultType"`, `"taskId"`, `"tasks/`} {
		if strings.Contains(w.String(), bad) {
			t.Errorf("the 2025-11-25 session carried %s:\n%s", bad, w.String())
		}
	}
	wantPromotedOnce(t, s)
}

// TestOlderSessionDeclaringTasksRefusedRequiredTask: a tool that runs only
// as a task is refused on a 2025-11-25 session, extension declared or
// not, with -32021 naming the extension, before anything runs; the
// extension's own methods are refused there too.
func TestOlderSessionDeclaringTasksRefusedRequiredTask(t *testing.T) {
	s := start(t, "memory:", testRing(t), "eras")
	ctx := context.Background()
	cs, w := legacyTasksClient(t, s.URL, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return nil, errors.New("nothing should be asked")
	})
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "failing_job", Arguments: map[string]any{}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeMissingRequiredClientCapabilities {
		t.Fatalf("failing_job on 2025-11-25: %v", err)
	}
	if err := taskstest.RequiresExtension(je.Data); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(je.Message, "2026-07-28") {
		t.Errorf("the refusal does not say which protocol the extension needs: %q", je.Message)
	}
	if strings.Contains(w.String(), `"taskId"`) {
		t.Errorf("a task was created:\n%s", w.String())
	}
	for _, method := range []string{tasks.MethodGet, tasks.MethodUpdate, tasks.MethodCancel} {
		code, msg := sessionCall(t, s.URL, cs.ID(), method, map[string]any{"taskId": "t-1", "inputResponses": map[string]any{}})
		if code != mcp.CodeMissingRequiredClientCapabilities || !strings.Contains(msg, "2026-07-28") {
			t.Errorf("%s on 2025-11-25: %d %q", method, code, msg)
		}
	}
}

// sessionCall posts one request on the 2025-11-25 session id (a method
// the go-sdk client has no call for) and returns its error's code and
// message (0, "" for a result).
func sessionCall(t *testing.T, url, session, method string, params map[string]any) (int64, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	status, _, raw := postMCP(t, url, string(body), "Mcp-Protocol-Version", "2025-11-25", "Mcp-Session-Id", session)
	for line := range strings.SplitSeq(string(raw), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var msg struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(data), &msg); err != nil {
			t.Fatalf("%s: %v: %s", method, err, data)
		}
		if msg.Error != nil {
			return msg.Error.Code, msg.Error.Message
		}
		return 0, ""
	}
	t.Fatalf("%s: no message in %d %s", method, status, raw)
	return 0, ""
}
