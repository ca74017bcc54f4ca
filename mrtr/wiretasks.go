package mrtr

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// Long-running tools (spec: task) on the MCP Tasks extension
// (mrtr/tasks), as resumable tasks. The rounds before the task's start
// state are MRTR rounds of tools/call, as for any tool. The round that
// reaches the start state ends there, before the state runs, with a
// continuation positioned at it (deferAt); its tools/call is answered with
// a CreateTaskResult, and the task's record keeps a checkpoint: the
// request as the engine saw it (arguments, principal, client
// capabilities) and that continuation, sealed. Each step of the task
// (run by the tasks executor, on any instance) opens the checkpoint and
// runs one round from it, exactly as a tools/call round would
// (re-authorized, re-validated, effects under their claims and operation
// ids: a duplicate task of the same workflow replays an effect's outcome
// instead of running it again). A round that asks ends the step: the
// questions go out through the task (inputRequests on tasks/get) under
// keys unique for the task's lifetime ("r<round>.<key>"), with the next
// continuation in the checkpoint, and the answers of tasks/update start
// the next step. Nothing runs while the task waits.

// taskTokenLen bounds a sealed checkpoint: it is stored server-side, not
// sent in a header, so it may carry arguments larger than a requestState.
const taskTokenLen = 1 << 20

// checkpoint is what a task step resumes from.
type checkpoint struct {
	Arguments    json.RawMessage         `json:"arguments"`
	Principal    string                  `json:"principal,omitempty"` // as Config.Authenticate found it
	Capabilities *mcp.ClientCapabilities `json:"capabilities,omitempty"`
	RequestState string                  `json:"requestState"`
	// Round numbers the round the step runs, from 1: its asks are keyed
	// "r<Round>.", the answers it resumes with "r<Round-1>.".
	Round int `json:"round"`
	// IssuedAt is when the checkpoint was sealed, on the sealing
	// instance's clock (zero in checkpoints of earlier builds): a step on
	// an instance whose clock reads more than the tolerated skew before
	// it does not run (wiretaskfaults.go).
	IssuedAt time.Time `json:"issuedAt,omitzero"`
}

// taskRunner seals and opens the checkpoints of one task tool.
type taskRunner[F any] struct {
	e     *Engine
	p     Program[F]
	codec *seal.Codec
	ttl   time.Duration
	// skew is the clock skew tolerated between instances
	// (tasks.Config.ClockSkew); stateCodec opens the continuation inside
	// a checkpoint with it.
	skew       time.Duration
	stateCodec *seal.Codec
}

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
	tr := &taskRunner[F]{e: e, p: p, codec: e.cfg.Codec.WithMaxTokenLen(taskTokenLen), ttl: m.TTL(opts) + e.cfg.Codec.Skew(),
		skew: m.ClockSkew(), stateCodec: e.cfg.Codec.WithSkew(m.ClockSkew())}
	m.AddResumableTool(s, tool, support, opts, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
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
			// The round deferred to the task (deferRound).
			return tasks.StartResumable(ctx, func(taskID string) ([]byte, error) {
				return tr.seal(taskID, checkpoint{Arguments: r.Arguments, Principal: r.Principal, Capabilities: r.Capabilities, RequestState: reply.RequestState, Round: 1})
			})
		}
		return replyResult(d, reply), nil
	}, tr.step)
}

// step runs one round of the workflow inside its task, from the
// checkpoint, and ends the step with the workflow's end or its questions.
// What fails because of this instance (its clock, its keys, its store)
// is a tasks.InstanceFault: the step runs again, here or elsewhere
// (wiretaskfaults.go).
func (tr *taskRunner[F]) step(ctx context.Context, in tasks.StepInput) (tasks.StepEnd, error) {
	e, d := tr.e, tr.p.Descriptor()
	cp, err := tr.open(in.TaskID, in.Checkpoint)
	if err != nil {
		return tasks.StepEnd{}, tr.checkpointFailed(ctx, in, err)
	}
	if err := tr.checkIssued(cp); err != nil {
		return tasks.StepEnd{}, err
	}
	prefix := "r" + strconv.Itoa(cp.Round-1) + "."
	answers := make(mcp.InputResponseMap, len(in.Answers))
	for key, a := range in.Answers {
		if k, ok := strings.CutPrefix(key, prefix); ok {
			answers[k] = a
		}
	}
	tround := &taskRound{codec: tr.stateCodec, id: in.TaskID}
	r := Request{Arguments: cp.Arguments, InputResponses: answers, RequestState: cp.RequestState, Capabilities: cp.Capabilities, Principal: cp.Principal, task: tround}
	reply, err := Run(ctx, e, tr.p, r)
	if err != nil {
		if fault := tr.roundFailed(in, tround); fault != nil {
			return tasks.StepEnd{}, fault
		}
		return tasks.StepEnd{}, e.wireError(ctx, d, err)
	}
	if reply.nothingRan {
		// The store failed before the round ran: a client would send the
		// round again, so the step runs again (the task does not end on
		// "try again later", which nobody could).
		return tasks.StepEnd{}, fmt.Errorf("mrtr: %s: %w: %s", d.Name, tasks.ErrRunAgain, reply.Final.Text)
	}
	if !reply.NeedsInput() {
		return tasks.StepEnd{Result: replyResult(d, reply)}, nil
	}
	if tround.waiting != "" {
		// Waiting for an approval: no question; the step after this one
		// runs when the approval resumes the task (approval.Config.Resume).
		next := cp
		next.RequestState = reply.RequestState
		sealed, err := tr.seal(in.TaskID, next)
		if err != nil {
			return tasks.StepEnd{}, e.wireError(ctx, d, err)
		}
		return tasks.StepEnd{Wait: tround.waiting, Checkpoint: sealed}, nil
	}
	prefix = "r" + strconv.Itoa(cp.Round) + "."
	asked := make(mcp.InputRequestMap, len(reply.InputRequests))
	for key, ir := range reply.InputRequests {
		asked[prefix+key] = ir
	}
	next := cp
	next.RequestState, next.Round = reply.RequestState, cp.Round+1
	sealed, err := tr.seal(in.TaskID, next)
	if err != nil {
		return tasks.StepEnd{}, e.wireError(ctx, d, err)
	}
	return tasks.StepEnd{Ask: asked, Checkpoint: sealed}, nil
}

// binding binds a checkpoint to the server, the tool and the task.
func (tr *taskRunner[F]) binding(taskID string) seal.Binding {
	return seal.Binding{Audience: tr.e.cfg.Audience, Subject: "tasks:" + tr.p.Descriptor().Subject(), ArgsDigest: sha256.Sum256([]byte(taskID))}
}

func (tr *taskRunner[F]) seal(taskID string, cp checkpoint) ([]byte, error) {
	cp.IssuedAt = tr.codec.Now().UTC()
	b, err := json.Marshal(cp)
	if err != nil {
		return nil, err
	}
	token, err := tr.codec.Seal(tr.binding(taskID), tr.ttl, b)
	if err != nil {
		return nil, fmt.Errorf("mrtr: sealing the checkpoint of task %s: %w", taskID, err)
	}
	return []byte(token), nil
}

func (tr *taskRunner[F]) open(taskID string, sealed []byte) (checkpoint, error) {
	var cp checkpoint
	b, err := tr.codec.Open(tr.binding(taskID), string(sealed))
	if se, ok := errors.AsType[*seal.Error](err); ok && se.Reason == seal.Expired && b != nil {
		// Authentic, only older than the task's TTL (a long step, a long
		// queue): the record's own expiry bounds a checkpoint, and the
		// requestState inside keeps its own.
		err = nil
	}
	if err != nil {
		return cp, err
	}
	if err := json.Unmarshal(b, &cp); err != nil {
		return cp, &malformedCheckpoint{err}
	}
	if cp.Round < 1 {
		return cp, &malformedCheckpoint{fmt.Errorf("checkpoint at round %d", cp.Round)}
	}
	return cp, nil
}

// TaskSealer is a tasks.Sealer built from the engine's keys (codec, as in
// Config.Codec): a task's data at rest is sealed as requestState is,
// bound to audience and the task's id, and opens on every instance that
// shares the key ring.
func TaskSealer(codec *seal.Codec, audience string) tasks.Sealer {
	return taskSealer{codec: codec.WithMaxTokenLen(taskRecordTokenLen), audience: audience}
}

// taskRecordTokenLen bounds the sealed data of a task record (its result
// included).
const taskRecordTokenLen = 16 << 20

type taskSealer struct {
	codec    *seal.Codec
	audience string
}

func (s taskSealer) binding(taskID string) seal.Binding {
	return seal.Binding{Audience: s.audience, Subject: "tasks/record", ArgsDigest: sha256.Sum256([]byte(taskID))}
}

func (s taskSealer) Seal(taskID string, ttl time.Duration, plaintext []byte) ([]byte, error) {
	token, err := s.codec.Seal(s.binding(taskID), ttl, plaintext)
	return []byte(token), err
}

func (s taskSealer) Open(taskID string, sealed []byte) ([]byte, error) {
	return s.codec.Open(s.binding(taskID), string(sealed))
}

// replyResult is the tools/call result of reply: its questions, or its
// end (toolResult: text, content items, structured result).
func replyResult(d *mrtrimpl.Descriptor, reply *Reply) *mcp.CallToolResult {
	if reply.NeedsInput() {
		return &mcp.CallToolResult{Content: []mcp.Content{}, InputRequests: reply.InputRequests, RequestState: reply.RequestState}
	}
	return toolResult(d, reply.Final)
}
