package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Install adds the extension to s: the capability under
// capabilities.extensions of server/discover results and of initialize
// results of 2026-07-28 and later, the methods tasks/get, tasks/update and
// tasks/cancel (gated on the client declaring the extension on protocol
// 2026-07-28 or later, -32021 otherwise; Mcp-Name checked against the task
// id, -32020), and the tools/call middleware that turns a round of a task
// tool that called Start into a CreateTaskResult. Install s once before
// registering task tools with AddTool.
func (m *Manager) Install(s *mcp.Server) error {
	m.mu.Lock()
	if _, ok := m.tools[s]; ok {
		m.mu.Unlock()
		return errors.New("tasks: Install called twice for this server")
	}
	m.tools[s] = map[string]*toolEntry{}
	m.mu.Unlock()
	if err := mcp.AddReceivingCustomMethod(s, MethodGet, func(ctx context.Context, _ *mcp.ServerSession, p *GetParams) (*DetailedTask, error) {
		return m.get(ctx, p.TaskID)
	}); err != nil {
		return err
	}
	if err := mcp.AddReceivingCustomMethod(s, MethodUpdate, func(ctx context.Context, _ *mcp.ServerSession, p *UpdateParams) (*Ack, error) {
		return m.update(ctx, p)
	}); err != nil {
		return err
	}
	if err := mcp.AddReceivingCustomMethod(s, MethodCancel, func(ctx context.Context, _ *mcp.ServerSession, p *CancelParams) (*Ack, error) {
		return m.cancel(ctx, p.TaskID)
	}); err != nil {
		return err
	}
	s.AddReceivingMiddleware(m.middleware(s))
	return nil
}

// ToolHandler is a go-sdk tool handler that may call Start.
type ToolHandler = mcp.ToolHandler

// AddTool registers a task tool on s (Install first). The handler runs
// every tools/call round as usual (MRTR rounds included) and calls Start
// when the long-running part begins.
func (m *Manager) AddTool(s *mcp.Server, t *mcp.Tool, support Support, opts ToolOptions, h ToolHandler) {
	if support != Optional && support != Required {
		panic(fmt.Sprintf("tasks.AddTool: %s: support must be Optional or Required", t.Name))
	}
	m.mu.Lock()
	tools, ok := m.tools[s]
	if !ok {
		m.mu.Unlock()
		panic("tasks.AddTool: call Install on the server first")
	}
	tools[t.Name] = &toolEntry{support: support, opts: opts}
	m.mu.Unlock()
	if t.Meta == nil {
		t.Meta = mcp.Meta{}
	}
	// SEP-2663 has tools say whether they run as tasks; go-sdk's Tool has
	// no execution field, so the declaration travels in _meta.
	t.Meta[ExtensionID] = map[string]any{"taskSupport": support.String()}
	s.AddTool(t, h)
}

// TTL is how long a task of a tool registered with opts stays readable
// after its last update: what its data must stay openable for.
func (m *Manager) TTL(opts ToolOptions) time.Duration {
	if opts.TTL > 0 {
		return opts.TTL
	}
	return m.cfg.TTL
}

// ClockSkew returns the clock difference between instances that steps
// tolerate (Config.ClockSkew).
func (m *Manager) ClockSkew() time.Duration { return m.cfg.ClockSkew }

func (m *Manager) tool(s *mcp.Server, name string) *toolEntry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tools[s][name]
}

// startKey carries the slot a task tool's round may fill with Start.
type startKey struct{}

type startSlot struct {
	m          *Manager
	tool       string
	entry      *toolEntry
	negotiated bool
	principal  string
	created    *CreateTaskResult
}

// extraKey carries the request's extra (token, headers) to the tasks/*
// handlers, which go-sdk gives only params.
type extraKey struct{}

type capsRequest interface {
	ClientCapabilities() *mcp.ClientCapabilities
}

type versionRequest interface {
	ProtocolVersion() string
}

// negotiated reports whether req may use the extension: it declares it,
// and it is a request of an era that has it (2026-07-28 and later; the
// version of its _meta, or of its session's initialize). An older session
// that declares it anyway (the Inspector's legacy mode does, next to the
// 2025-11-25 tasks capability) cannot read a flat resultType "task" nor
// call tasks/*: to its era the extension is not there. era is the
// request's protocol version ("" when it has none).
func negotiated(req mcp.Request) (ok bool, era string) {
	if vr, isVR := req.(versionRequest); isVR {
		era = vr.ProtocolVersion()
	}
	cr, isCR := req.(capsRequest)
	if !isCR {
		return false, era
	}
	c := cr.ClientCapabilities()
	if c == nil || c.Extensions == nil {
		return false, era
	}
	_, ok = c.Extensions[ExtensionID]
	return ok && hasExtension(era), era
}

// hasExtension reports whether protocol version era has the extension.
func hasExtension(era string) bool { return era >= protocolTasks }

// missingCapability is -32021 with data.requiredCapabilities naming the
// extension; for a request of an older era, the message says the
// extension needs 2026-07-28 (declaring it there is not enough).
func missingCapability(era string) error {
	data, _ := json.Marshal(map[string]any{
		"requiredCapabilities": map[string]any{"extensions": map[string]any{ExtensionID: map[string]any{}}},
	})
	msg := "the client did not declare the " + ExtensionID + " extension"
	if era != "" && !hasExtension(era) {
		msg = "the " + ExtensionID + " extension needs protocol " + protocolTasks + " or later; this request is on " + era
	}
	return &jsonrpc.Error{Code: codeMissingCapabilities, Message: msg, Data: data}
}

func (m *Manager) middleware(s *mcp.Server) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "server/discover", "initialize":
				res, err := next(ctx, method, req)
				if err == nil {
					advertise(res)
				}
				return res, err
			case MethodGet, MethodUpdate, MethodCancel:
				if ok, era := negotiated(req); !ok {
					return nil, missingCapability(era)
				}
				if err := checkNameHeader(req); err != nil {
					return nil, err
				}
				return next(context.WithValue(ctx, extraKey{}, req.GetExtra()), method, req)
			case "tools/call":
				ctr, ok := req.(*mcp.CallToolRequest)
				if !ok || ctr.Params == nil {
					break
				}
				entry := m.tool(s, ctr.Params.Name)
				if entry == nil {
					break
				}
				negotiated, era := negotiated(req)
				if !negotiated && entry.support == Required {
					return nil, missingCapability(era)
				}
				principal, err := m.cfg.Authenticate(ctx, req.GetExtra())
				if err != nil {
					return nil, &jsonrpc.Error{Code: codeInvalidParams, Message: "not authenticated"}
				}
				slot := &startSlot{m: m, tool: ctr.Params.Name, entry: entry, negotiated: negotiated, principal: principal}
				res, err := next(context.WithValue(ctx, startKey{}, slot), method, req)
				if err != nil {
					return nil, err
				}
				if slot.created != nil {
					return slot.created, nil
				}
				return res, nil
			}
			return next(ctx, method, req)
		}
	}
}

// advertise adds the extension to the capabilities of a server/discover
// result, and of an initialize result that negotiated an era that has it:
// a 2025-11-25 session is offered only what it can use.
func advertise(res mcp.Result) {
	var caps **mcp.ServerCapabilities
	switch r := res.(type) {
	case *mcp.DiscoverResult:
		caps = &r.Capabilities
	case *mcp.InitializeResult:
		if !hasExtension(r.ProtocolVersion) {
			return
		}
		caps = &r.Capabilities
	default:
		return
	}
	if *caps == nil {
		*caps = &mcp.ServerCapabilities{}
	}
	(*caps).AddExtension(ExtensionID, map[string]any{})
}

// checkNameHeader: on HTTP at protocol 2026-07-28 and later, the Mcp-Name
// header of a tasks/* request must carry the task id of its params
// (SEP-2663 "Routing Headers"); go-sdk checks Mcp-Name only for tools,
// prompts and resources.
func checkNameHeader(req mcp.Request) error {
	extra := req.GetExtra()
	if extra == nil || extra.Header == nil {
		return nil // not HTTP
	}
	if v := extra.Header.Get(headerProtocol); v == "" || v < protocolTasks {
		return nil
	}
	id, ok := taskIDOf(req.GetParams())
	if !ok {
		return nil
	}
	got := strings.TrimSpace(extra.Header.Get(headerName))
	if got == "" {
		return &jsonrpc.Error{Code: codeHeaderMismatch, Message: fmt.Sprintf("missing required %s header for %s", headerName, "tasks/*")}
	}
	if got != id {
		return &jsonrpc.Error{Code: codeHeaderMismatch, Message: fmt.Sprintf("header mismatch: %s does not match params.taskId", headerName)}
	}
	return nil
}

func taskIDOf(p mcp.Params) (string, bool) {
	switch p := p.(type) {
	case *GetParams:
		return p.TaskID, p != nil
	case *UpdateParams:
		return p.TaskID, p != nil
	case *CancelParams:
		return p.TaskID, p != nil
	}
	return "", false
}
