package taskstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// Client speaks MCP 2026-07-28 over streamable HTTP the way a stateless
// client does, for tests of the Tasks extension (which go-sdk's client
// does not speak): each request stands alone, its _meta carrying the
// protocol version, the client's info and capabilities (the extension
// declared unless NoTasks), with the routing headers (Mcp-Method, and
// Mcp-Name from params.name or params.taskId) that the conformance suite
// sends.
type Client struct {
	t   testing.TB
	URL string
	// Header is added to every request (credentials, for instance).
	Header http.Header
	// NoTasks leaves the extension out of the declared capabilities.
	NoTasks bool
	// HTTP sends the requests; nil: http.DefaultClient.
	HTTP *http.Client
	// Edit, when set, changes each request last (a test of a missing or
	// wrong routing header, say).
	Edit func(*http.Request)
}

// NewClient returns a Client of the MCP endpoint at url.
func NewClient(t testing.TB, url string) *Client {
	return &Client{t: t, URL: url, Header: http.Header{}}
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// RequiresExtension checks the data of a -32021 error (missing required
// client capabilities): nil when its requiredCapabilities.extensions
// names the Tasks extension, else an error saying what data holds.
func RequiresExtension(data []byte) error {
	var d struct {
		RequiredCapabilities struct {
			Extensions map[string]any `json:"extensions"`
		} `json:"requiredCapabilities"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return fmt.Errorf("error data %s: %w", data, err)
	}
	if d.RequiredCapabilities.Extensions[tasks.ExtensionID] == nil {
		return fmt.Errorf("error data %s does not name %s", data, tasks.ExtensionID)
	}
	return nil
}

// Call sends method with params (which it does not change) and returns
// the result, or the JSON-RPC error. A transport failure fails the test.
func (c *Client) Call(method string, params map[string]any) (map[string]any, *RPCError) {
	c.t.Helper()
	caps := map[string]any{"elicitation": map[string]any{}}
	if !c.NoTasks {
		caps["extensions"] = map[string]any{tasks.ExtensionID: map[string]any{}}
	}
	params = maps.Clone(params)
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "taskstest", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	for k, vs := range c.Header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	for _, key := range []string{"name", "taskId"} {
		if v, ok := params[key].(string); ok {
			req.Header.Set("Mcp-Name", v)
		}
	}
	if c.Edit != nil {
		c.Edit(req)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s: reading the response: %v", method, err)
	}
	// An event stream carries the response in its last data line.
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var last string
		for line := range strings.SplitSeq(string(raw), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				last = data
			}
		}
		raw = []byte(last)
	}
	var out struct {
		Result map[string]any `json:"result"`
		Error  *RPCError      `json:"error"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		c.t.Fatalf("%s: %v in %s", method, err, raw)
	}
	return out.Result, out.Error
}

// OK is Call for a request that must succeed.
func (c *Client) OK(method string, params map[string]any) map[string]any {
	c.t.Helper()
	res, rerr := c.Call(method, params)
	if rerr != nil {
		c.t.Fatalf("%s %v: JSON-RPC error %d %s", method, params, rerr.Code, rerr.Message)
	}
	return res
}

// Tool calls tool name with arguments.
func (c *Client) Tool(name string, args map[string]any) map[string]any {
	c.t.Helper()
	return c.OK("tools/call", map[string]any{"name": name, "arguments": args})
}

// Get is tasks/get of id.
func (c *Client) Get(id string) map[string]any {
	c.t.Helper()
	return c.OK(tasks.MethodGet, map[string]any{"taskId": id})
}

// Until polls task id until its status is one of want, or terminal, and
// returns it; it fails the test after within. No tasks/get may carry a
// requestState.
func (c *Client) Until(id string, within time.Duration, want ...tasks.Status) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := c.Get(id)
		status := tasks.Status(fmt.Sprint(got["status"]))
		if status.Terminal() || slices.Contains(want, status) {
			if _, ok := got["requestState"]; ok {
				c.t.Errorf("tasks/get (%s) carries requestState", status)
			}
			return got
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("task %s still %s after %s, want %v: %v", id, status, within, want, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ResultText is the text of the first content item of a completed task's
// result, or a description of what is there instead.
func ResultText(task map[string]any) string {
	res, _ := task["result"].(map[string]any)
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		return fmt.Sprintf("no content in %v", task["result"])
	}
	first, _ := content[0].(map[string]any)
	text, _ := first["text"].(string)
	return text
}
