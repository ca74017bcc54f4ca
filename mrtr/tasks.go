package mrtr

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// Long-running tools (spec: task) on the MCP Tasks extension
// (mrtr/tasks). The rounds before the task's start state are MRTR rounds
// of tools/call, as for any tool. The round that reaches the start state
// ends there, before the state runs, with a continuation positioned at it
// (deferAt); its tools/call is answered with a CreateTaskResult and the
// task resumes the workflow from that continuation, detached from the
// request: the effect runs inside the task, with the engine's guarantees
// (its claim and operation id: a duplicate task of the same workflow
// replays the effect's outcome instead of running it again). Later asks of
// the workflow go through the task (inputRequests on tasks/get, answers on
// tasks/update) under keys unique for the task's lifetime ("r<round>.<key>");
// the continuation between them stays in the task's memory, never on the
// wire, and is bound by the continuation's TTL like any other.

// addTaskTool registers p's tool on the engine's task manager.
func addTaskTool[F any](s *mcp.Server, e *Engine, p Program[F], tool *mcp.Tool) {
	d := p.Descriptor()
	m := e.cfg.Tasks
	if m == nil {
		panic(fmt.Sprintf("mrtr: %s runs only as a task and needs Config.Tasks", d.Name))
	}
	support := tasks.Optional
	if d.Task.Required {
		support = tasks.Required
	}
	opts := tasks.ToolOptions{TTL: d.Task.TTL, PollInterval: d.Task.PollInterval, Timeout: d.Task.Timeout}
	m.AddTool(s, tool, support, opts, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := e.request(ctx, req.Extra, req.Params.Arguments, req.Params.InputResponses, req.Params.RequestState, clientCapabilities(req))
		if err != nil {
			return nil, err
		}
		var reply *Reply
		if tasks.Negotiated(ctx) {
			r.deferAt = d.Task.Start
			reply, err = Run(ctx, e, p, r)
		} else {
			// Plain rounds, as AddTool serves them: progress goes out on the
			// request's token. (Inside a task there is no request to report
			// to: a slow state's reporter sends nothing there.)
			pctx, endProgress := requestProgress(ctx, req.Session, req.Params.GetProgressToken())
			reply, err = serveRounds(pctx, e, p, r, req.ProtocolVersion(), req.Session)
			endProgress()
		}
		if err != nil {
			return nil, e.wireError(ctx, d, err)
		}
		if reply.NeedsInput() && len(reply.InputRequests) == 0 {
			return tasks.Start(ctx, func(ctx context.Context, run *tasks.Run) (*mcp.CallToolResult, error) {
				return runTask(ctx, e, p, r, reply.RequestState, run)
			})
		}
		return replyResult(d, reply), nil
	})
}

// runTask drives the workflow inside its task, from the deferred
// continuation to the end.
func runTask[F any](ctx context.Context, e *Engine, p Program[F], r Request, state string, run *tasks.Run) (*mcp.CallToolResult, error) {
	d := p.Descriptor()
	r.deferAt = 0
	r.RequestState, r.InputResponses = state, mcp.InputResponseMap{}
	for round := 1; ; round++ {
		reply, err := Run(ctx, e, p, r)
		if err != nil {
			return nil, e.wireError(ctx, d, err)
		}
		if !reply.NeedsInput() {
			return replyResult(d, reply), nil
		}
		prefix := "r" + strconv.Itoa(round) + "."
		asked := make(mcp.InputRequestMap, len(reply.InputRequests))
		for key, ir := range reply.InputRequests {
			asked[prefix+key] = ir
		}
		answers, err := run.Ask(ctx, asked)
		if err != nil {
			return nil, err
		}
		r.InputResponses = make(mcp.InputResponseMap, len(answers))
		for key, a := range answers {
			r.InputResponses[strings.TrimPrefix(key, prefix)] = a
		}
		r.RequestState = reply.RequestState
	}
}

// replyResult is the tools/call result of reply: its questions, or its
// end (toolResult: text, content items, structured result).
func replyResult(d *mrtrimpl.Descriptor, reply *Reply) *mcp.CallToolResult {
	if reply.NeedsInput() {
		return &mcp.CallToolResult{Content: []mcp.Content{}, InputRequests: reply.InputRequests, RequestState: reply.RequestState}
	}
	return toolResult(d, reply.Final)
}

// deferRound ends the round before the task's start state runs: the
// continuation positioned there, no input requests (see addTaskTool).
func (rr *run[F]) deferRound(ctx context.Context, r *round, path []string) (*Reply, error) {
	e, d, p, f := rr.e, rr.d, rr.p, rr.f
	if problems := p.CheckContinuation(ctx, f); len(problems) > 0 {
		return nil, fmt.Errorf("mrtr: %s: at the task's start the continuation breaks the spec: %s", d.Name, strings.Join(problems, "; "))
	}
	next := &envelope{workflow: rr.env.workflow, args: rr.argsDigest, state: p.State(f), round: rr.env.round + 1, data: p.AppendContinuation(make([]byte, 0, 256), f)}
	keep := func(rec store.StateRecord) { r.nextState = &rec }
	reply, err := e.askReply(ctx, d, rr.binding, next, rr.pHash, rr.caps, nil, nil, keep)
	if err != nil {
		return nil, err
	}
	rr.rt.outcome = "task"
	reply.Path = path
	return reply, nil
}
