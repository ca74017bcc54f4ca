package mrtr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// The wire adapter: programs on an mcp.Server, served over streamable HTTP.

// protocolMRTR is the first protocol revision with native MRTR.
const protocolMRTR = "2026-07-28"

// maxBridgeRounds bounds the rounds the engine drives itself for an older
// client.
const maxBridgeRounds = 16

// defaultPrincipal is the user id of the bearer token the SDK's auth
// middleware verified, or "" (anonymous).
func defaultPrincipal(_ context.Context, extra *mcp.RequestExtra) (string, error) {
	if extra != nil && extra.TokenInfo != nil {
		return extra.TokenInfo.UserID, nil
	}
	return "", nil
}

// AddTool registers a generated tool program on s. Arguments that fail
// validation get an error result (isError) naming each problem, on every
// protocol version; an unknown tool (the SDK) and a rejected requestState
// get JSON-RPC error -32602. Rounds of clients on
// protocol 2026-07-28 and later are answered natively (input_required with
// requestState); older clients on a stateful session are served by the
// engine itself asking them over the session (elicitation, sampling, roots)
// until the workflow ends, so one call completes it.
func AddTool[F any](s *mcp.Server, e *Engine, p Program[F]) {
	d := registered(s, e, p, vocab.KindTool, "mrtr.AddTool: %s is a prompt; use AddPrompt")
	tool := &mcp.Tool{Name: d.Name, Title: d.Title, Description: d.Description, InputSchema: d.InputSchema}
	if d.OutputSchema != nil {
		tool.OutputSchema = d.OutputSchema
	}
	destructive := d.Destructive
	tool.Annotations = &mcp.ToolAnnotations{Title: d.Title, DestructiveHint: &destructive}
	if d.Task != nil && (e.cfg.Tasks != nil || d.Task.Required) {
		addTaskTool(s, e, p, tool) // wiretasks.go
		return
	}
	s.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, endProgress := requestProgress(ctx, req.Session, req.Params.GetProgressToken())
		defer endProgress()
		reply, err := answer(ctx, e, p, req.Extra, req.Params.Arguments, req.Params.InputResponses, req.Params.RequestState,
			clientCapabilities(req), req.ProtocolVersion(), req.Session)
		if err != nil {
			return nil, err
		}
		if reply.NeedsInput() {
			// An empty content list, not null: strict clients refuse a null.
			return &mcp.CallToolResult{Content: []mcp.Content{}, InputRequests: reply.InputRequests, RequestState: reply.RequestState}, nil
		}
		return toolResult(d, reply.Final), nil
	})
}

// AddPrompt registers a generated prompt program on s (see AddTool).
// A prompt that does not end in success fails with JSON-RPC error -32000
// carrying its message, and one whose arguments fail validation with
// -32602 naming each problem: prompts/get has no error result.
func AddPrompt[F any](s *mcp.Server, e *Engine, p Program[F]) {
	d := registered(s, e, p, vocab.KindPrompt, "mrtr.AddPrompt: %s is a tool; use AddTool")
	e.addCompleter(vocab.KindPrompt, d.Name, p)
	prompt := &mcp.Prompt{Name: d.Name, Title: d.Title, Description: d.Description, Arguments: d.PromptArguments}
	s.AddPrompt(prompt, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		args, err := json.Marshal(req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		ctx, endProgress := requestProgress(ctx, req.Session, req.Params.GetProgressToken())
		defer endProgress()
		reply, err := settled(answer(ctx, e, p, req.Extra, args, req.Params.InputResponses, req.Params.RequestState,
			clientCapabilities(req), req.ProtocolVersion(), req.Session))
		if err != nil {
			return nil, err
		}
		if reply.NeedsInput() {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{}, InputRequests: reply.InputRequests, RequestState: reply.RequestState}, nil
		}
		res := &mcp.GetPromptResult{Description: d.Description}
		for _, m := range reply.Final.Messages {
			var content mcp.Content = &mcp.TextContent{Text: m.Text}
			if m.Content != nil {
				content = m.Content.MCP()
			}
			res.Messages = append(res.Messages, &mcp.PromptMessage{Role: mcp.Role(m.Role), Content: content})
		}
		return res, nil
	})
}

// registered returns the descriptor of p, which AddTool or AddPrompt
// registers on s as a kind: it panics with wrong (a format of the name)
// for a program of another kind, and as mustServe for one e cannot serve;
// it keeps the client answers of s (keepClientAnswers) and gives every
// error s sends a code (codedErrors).
func registered[F any](s *mcp.Server, e *Engine, p Program[F], kind vocab.Kind, wrong string) *mrtrimpl.Descriptor {
	d := p.Descriptor()
	if d.Kind != kind {
		panic(fmt.Sprintf(wrong, d.Name))
	}
	mustServe(e, d)
	keepClientAnswers(s)
	codedErrors(s)
	return d
}

// mustServe refuses, at registration, a program the engine could not serve
// (like the SDK, which panics on a tool without an input schema): better a
// failed start than every round failing.
func mustServe(e *Engine, d *mrtrimpl.Descriptor) {
	if d.Storage == vocab.Reference && e.cfg.Store == nil {
		panic(fmt.Sprintf("mrtr: %s keeps its continuation server-side and needs Config.Store", d.Name))
	}
	for _, st := range d.States {
		if st.Approval && e.cfg.Approvals == nil {
			panic(fmt.Sprintf("mrtr: %s: gate %s needs an approval and the engine has no Config.Approvals (approval.New)", d.Name, st.Name))
		}
	}
}

// settled passes on answer's reply and error for a prompt or a resource
// read, but for a final reply that is not a success: that one is a
// JSON-RPC error (-32602 for invalid arguments, -32000 otherwise) with the
// reply's text.
func settled(reply *Reply, err error) (*Reply, error) {
	if err != nil || reply.NeedsInput() {
		return reply, err
	}
	switch reply.Final.Outcome {
	case OutcomeSuccess:
		return reply, nil
	case OutcomeInvalidArguments:
		return nil, &jsonrpc.Error{Code: codeInvalidParams, Message: reply.Final.Text}
	}
	return nil, &jsonrpc.Error{Code: -32000, Message: reply.Final.Text}
}

// answer serves one tools/call or prompts/get of p: the engine's view of
// the call, then its round (or rounds, for an older client), with errors
// shaped for the wire.
func answer[F any](ctx context.Context, e *Engine, p Program[F], extra *mcp.RequestExtra, args json.RawMessage,
	responses mcp.InputResponseMap, state string, caps *mcp.ClientCapabilities, version string, ss *mcp.ServerSession) (*Reply, error) {
	r, err := e.request(ctx, extra, args, responses, state, caps)
	if err != nil {
		return nil, err
	}
	reply, err := serveRounds(ctx, e, p, r, version, ss)
	if err != nil {
		return nil, e.wireError(ctx, p.Descriptor(), err)
	}
	return reply, nil
}

// ToolRequest is the Request that AddTool gives Run for req: its
// arguments, answers and requestState, the client's declared capabilities,
// and the principal Config.Authenticate finds (an error refuses the call
// as AddTool does). It is for adapters of your own around Run.
func (e *Engine) ToolRequest(ctx context.Context, req *mcp.CallToolRequest) (Request, error) {
	return e.request(ctx, req.Extra, req.Params.Arguments, req.Params.InputResponses, req.Params.RequestState, clientCapabilities(req))
}

// request builds the engine's view of a call.
func (e *Engine) request(ctx context.Context, extra *mcp.RequestExtra, args json.RawMessage, responses mcp.InputResponseMap, state string, caps *mcp.ClientCapabilities) (Request, error) {
	principal, err := e.authenticate(ctx, extra)
	if err != nil {
		return Request{}, err
	}
	return Request{Arguments: args, InputResponses: responses, RequestState: state, Capabilities: caps, Principal: principal}, nil
}

// authenticate finds the caller of a request (Config.Authenticate, or the
// SDK's verified token); a failure is logged with its reason and answered
// with an opaque -32602 "not authenticated".
func (e *Engine) authenticate(ctx context.Context, extra *mcp.RequestExtra) (string, error) {
	auth := e.cfg.Authenticate
	if auth == nil {
		auth = defaultPrincipal
	}
	principal, err := auth(ctx, extra)
	if err != nil {
		e.log.WarnContext(ctx, "mrtr: authentication failed", "error", err)
		return "", &jsonrpc.Error{Code: codeInvalidParams, Message: "not authenticated"}
	}
	return principal, nil
}

// serveRounds runs a round natively, or, for a client older than MRTR on a
// stateful session, runs rounds until the workflow ends, asking the client
// over the session in between (the SDK's own bridge re-invokes a handler
// only once, which is not enough for workflows of three or more rounds).
func serveRounds[F any](ctx context.Context, e *Engine, p Program[F], r Request, version string, ss *mcp.ServerSession) (*Reply, error) {
	reply, err := Run(ctx, e, p, r)
	if err != nil || !reply.NeedsInput() || version == "" || version >= protocolMRTR || ss == nil || ss.ID() == "" {
		return reply, err
	}
	for range maxBridgeRounds {
		responses, err := askOverSession(ctx, e, ss, p.Descriptor(), reply.InputRequests)
		if err != nil {
			return nil, err
		}
		r.InputResponses, r.RequestState = responses, reply.RequestState
		if reply, err = Run(ctx, e, p, r); err != nil || !reply.NeedsInput() {
			return reply, err
		}
	}
	return nil, fmt.Errorf("mrtr: %s still needs input after %d rounds", p.Descriptor().Name, maxBridgeRounds)
}

// askOverSession fulfils input requests by asking an older client directly
// over its session.
//
// An answer that breaks the requested schema (a value outside an enum, a
// number under its minimum) is taken as the client sent it: the program's
// own validation refuses it and asks again with "Please correct: ...",
// as it does for a 2026-07-28 client. go-sdk's ServerSession.Elicit would
// instead fail the whole call with an error of its own (v1.8.0 checks the
// content against requestedSchema after the client answered), so the
// client's result is kept on its way in (keepClientAnswers) and used when
// that check is the only thing that failed.
//
// The requests of a round are asked in the order the spec lists them (a
// map would ask them in a random order each time).
func askOverSession(ctx context.Context, e *Engine, ss *mcp.ServerSession, d *mrtrimpl.Descriptor, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	out := make(mcp.InputResponseMap, len(reqs))
	for _, key := range d.RequestOrder(reqs) {
		ir := reqs[key]
		var resp mcp.InputResponse
		var err error
		switch p := ir.(type) {
		case *mcp.ElicitParams:
			kept := &clientAnswer{}
			var res *mcp.ElicitResult
			res, err = ss.Elicit(context.WithValue(ctx, clientAnswerKey{}, kept), sessionElicitation(p))
			if err != nil && kept.res != nil && ctx.Err() == nil {
				e.log.InfoContext(ctx, "mrtr: the client's answer does not match the requested schema; the workflow asks again",
					"request", key, "error", err)
				res, err = kept.res, nil
			}
			resp = res
		//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; clients before 2026-07-28 are asked on their session
		case *mcp.CreateMessageParams:
			//lint:ignore SA1019 sampling stays supported in SEP-2577's deprecation window; clients before 2026-07-28 are asked on their session
			resp, err = ss.CreateMessage(ctx, p)
		//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; clients before 2026-07-28 are asked on their session
		case *mcp.ListRootsParams:
			//lint:ignore SA1019 roots stays supported in SEP-2577's deprecation window; clients before 2026-07-28 are asked on their session
			resp, err = ss.ListRoots(ctx, p)
		default:
			err = fmt.Errorf("unsupported input request %T", ir)
		}
		if err != nil {
			return nil, &askError{key: key, err: err}
		}
		out[key] = resp
	}
	return out, nil
}

// askError is a failure to get an answer from an older client over its
// session: the client returned an error, went away, or timed out.
type askError struct {
	key string
	err error
}

func (a *askError) Error() string { return fmt.Sprintf("asking the client for %q: %v", a.key, a.err) }
func (a *askError) Unwrap() error { return a.err }

// clientAnswer receives the elicitation result a client sent, before the
// SDK checks it against the requested schema.
type clientAnswer struct{ res *mcp.ElicitResult }

type clientAnswerKey struct{}

// answersKept lists the servers keepClientAnswers has wrapped, weakly: a
// server that is gone drops out.
var answersKept sync.Map // weak.Pointer[mcp.Server] -> struct{}

// keepClientAnswers adds, once per server, a sending middleware that
// stores an elicitation result in the clientAnswer of the request's
// context (askOverSession's) as it comes back from the client. Other
// requests and contexts without a clientAnswer pass through untouched.
func keepClientAnswers(s *mcp.Server) {
	addOnce(&answersKept, s, s.AddSendingMiddleware, func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if kept, ok := ctx.Value(clientAnswerKey{}).(*clientAnswer); ok && err == nil {
				if er, ok := res.(*mcp.ElicitResult); ok {
					kept.res = er
				}
			}
			return res, err
		}
	})
}

// addOnce adds mw to s with add (s.AddSendingMiddleware or
// s.AddReceivingMiddleware) unless seen holds s already, and adds s to
// seen, weakly: a server that is gone drops out of seen.
func addOnce(seen *sync.Map, s *mcp.Server, add func(...mcp.Middleware), mw mcp.Middleware) {
	key := weak.Make(s)
	if _, loaded := seen.LoadOrStore(key, struct{}{}); loaded {
		return
	}
	runtime.AddCleanup(s, func(k weak.Pointer[mcp.Server]) { seen.Delete(k) }, key)
	add(mw)
}

// wireError shapes a failed call for the client, always with a JSON-RPC
// code (go-sdk sends an error without one as code 0). A call whose own
// context ended (cancelled, timed out; asking an older client over its
// session included) gets requestEnded's error; JSON-RPC errors (-32602,
// -32021, or one the client itself returned when asked over its session)
// go back as they are; anything else, a context error while the call is
// live included (a store call's own timeout), is an internal error the
// client sees only as "internal error", so its cause is logged here, with
// the tool.
func (e *Engine) wireError(ctx context.Context, d *mrtrimpl.Descriptor, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		if ended, ok := requestEnded(ctx); ok {
			return ended
		}
	}
	var ae *askError
	if errors.As(err, &ae) {
		e.log.WarnContext(ctx, "mrtr: asking the client over its session failed", "tool", d.Name, "request", ae.key, "error", ae.err)
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	if ae == nil {
		e.log.ErrorContext(ctx, "mrtr: internal error", "tool", d.Name, "error", err)
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
}
