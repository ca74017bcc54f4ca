package mrtr

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/seal"
)

// Step is what one state decided: go to another state, ask for input, or
// finish. Generated code builds Steps with the Round's methods.
type Step struct {
	kind  stepKind
	next  uint16
	on    string
	ask   []Pending
	final *Final
}

type stepKind uint8

const (
	stepGoto stepKind = iota + 1
	stepAsk
	stepFinish
)

// Pending is one input request a state still needs answered.
type Pending struct {
	Key      string
	Kind     RequestKind
	Optional bool
	Params   mcp.InputRequest
}

// Round is one request of a workflow as the engine serves it. Generated
// Step code uses it to read answers, run effects and say what comes next;
// it is not safe for concurrent use and lives for one request.
type Round struct {
	e    *Engine
	d    *Descriptor
	call *Call
	req  *Request

	// resumedAt is the state the requestState was issued at (0 on the first
	// round), and sent the mask of its requests that were sent (see
	// envelope). Answers from inputResponses count only there, only for a
	// request that was sent, and only until the round leaves that state:
	// nobody answers, or confirms, what they were not shown, and a loop back
	// to the same question asks it again.
	resumedAt   uint16
	sent        uint64
	leftResumed bool
	current     uint16
	// inputs are answers supplied up front in the "inputs" argument
	// (non-interactive programs).
	inputs map[string]json.RawMessage

	// effect plumbing, set by Run: encode/restore the flow's continuation.
	snapshot   func() []byte
	restore    func([]byte) error
	argsDigest [32]byte
	workflow   string
	pHash      string
	hasRecord  bool // the round holds a round record (retries replay it)
	// effected is set once a side effect has run (or was replayed) in this
	// round: from then on the round finishes whatever the client does.
	effected bool
	// visits counts the round's visits of each effect state with the
	// workflow's own operation id (see operation).
	visits map[uint16]int
}

// Call returns what handlers know about this round.
func (r *Round) Call() *Call { return r.call }

// Goto moves the workflow to state next. on names the transition ("next",
// "outcome:<name>", "decline", "cancel").
func (r *Round) Goto(next uint16, on string) (Step, error) {
	return Step{kind: stepGoto, next: next, on: on}, nil
}

// Finish ends the workflow with a result.
func (r *Round) Finish(f Final) (Step, error) { return Step{kind: stepFinish, final: &f}, nil }

// Ask ends the round asking for the pending requests; the workflow stays in
// the current state.
func (r *Round) Ask(p []Pending) (Step, error) {
	if len(p) == 0 {
		return Step{}, errors.New("mrtr: Ask with no requests")
	}
	return Step{kind: stepAsk, ask: p}, nil
}

// Can reports whether the client declared the capability a request kind
// needs. Generated code skips optional requests the client cannot answer.
func (r *Round) Can(k RequestKind) bool { return hasCapability(r.call.Capabilities, k.Capability()) }

// ErrUnknownState is returned by generated Step code for a state number it
// does not know (a bug, or a corrupted flow).
var ErrUnknownState = errors.New("mrtr: unknown state")

// Run serves one round of program p: the whole trust boundary described in
// the package documentation. It returns the reply (arguments that fail
// validation end it with outcome invalid_arguments), or a *jsonrpc.Error for
// protocol-level failures (rejected requestState -32602, missing client
// capabilities -32021), or the context's error.
func Run[F any](ctx context.Context, e *Engine, p Program[F], req Request) (reply *Reply, err error) {
	d := p.Descriptor()
	ctx, rt := e.tel.begin(ctx, e, d, req.RequestState == "")
	defer func() { rt.end(ctx, reply, err) }()
	// A panicking handler (or generated code) fails its round, not the
	// server: go-sdk runs handlers in goroutines without a recover, so an
	// unrecovered panic would end the process and every round in flight.
	// Claims are released by the deferred calls that run before this one.
	defer func() {
		if v := recover(); v != nil {
			e.log.ErrorContext(ctx, "mrtr: round panicked", "tool", d.Name, "panic", v, "stack", string(debug.Stack()))
			rt.outcome = "panic"
			reply, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
		}
	}()

	caps := req.Capabilities
	if caps == nil {
		caps = &mcp.ClientCapabilities{}
	}
	if missing := missingCapabilities(caps, d.Requires); len(missing) > 0 {
		rt.outcome = "missing_capability"
		return nil, missingCapabilitiesError(missing)
	}

	// Arguments: decoded and validated by generated code, on every round.
	args, inputs, err := splitInputs(req.Arguments, d.NonInteractive)
	if err != nil {
		return invalidArguments(rt, err)
	}
	// WorkflowID and Round are known once the continuation is opened, after
	// Authorize; the logger gets them then.
	call := &Call{Principal: req.Principal, Capabilities: caps, Instance: e.cfg.Instance, Round: 1,
		Logger: e.log.With("tool", d.Name)}
	f, err := p.NewFlow(ctx, call, args)
	if err != nil {
		return e.argumentsFailed(ctx, rt, d, err) // an argument validator may fail as a dependency
	}
	pHash := e.principalHash(req.Principal)
	argsDigest := sha256.Sum256(p.AppendArgs([]byte("mrtrgen/args/v1\x00"), f))
	binding := seal.Binding{Audience: e.cfg.Audience, Subject: d.Subject(), Principal: pHash, ArgsDigest: argsDigest}

	// Authorize on every round, before the continuation is even opened: an
	// unauthorized caller learns nothing about a token.
	if err := p.Authorize(ctx, f); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rej, ok := isRejection(err)
		if !ok {
			// Authorize could not decide (its database is down, say): that is
			// a dependency failure, not a refusal.
			rt.outcome = string(OutcomeError)
			e.log.ErrorContext(ctx, "mrtr: authorization check failed", "tool", d.Name, "error", err)
			return &Reply{Final: &Final{Outcome: OutcomeError, Text: fmt.Sprintf("%s: the authorization check failed; try again later", d.Name)}}, nil
		}
		rt.outcome = string(OutcomeUnauthorized)
		return &Reply{Final: &Final{Outcome: OutcomeUnauthorized, Text: "not authorized: " + rej.msg}}, nil
	}

	// Verify the continuation, or start a new workflow.
	var env *envelope
	var expired error // an authentic token past its expiry: replays only
	if req.RequestState == "" {
		id, err := newWorkflowID()
		if err != nil {
			return nil, err
		}
		env = &envelope{workflow: id, state: d.Initial, round: 1}
	} else {
		env, err = e.openState(ctx, d, binding, req.RequestState, pHash)
		if err != nil && (env == nil || e.cfg.Store == nil) {
			return nil, e.rejectState(ctx, rt, d, err)
		}
		expired = err
	}
	call.WorkflowID, call.Round = env.workflowID(), env.round
	call.Logger = e.log.With("tool", d.Name, "workflow", call.WorkflowID, "round", env.round)
	rt.workflow(call.WorkflowID, env.round)

	// A retried round replays its first reply, also after its token expired
	// (the record outlives it); an expired token starts nothing new.
	var rec *roundRecord
	if req.RequestState != "" && e.cfg.Store != nil {
		rec, reply, err = e.claimRound(ctx, d, env, argsDigest, &req, inputs)
		switch {
		case reply != nil:
			rt.replayed = true
			return e.replay(d, caps, reply)
		case err != nil:
			return e.storeFailed(ctx, rt, d, err)
		case expired != nil:
			rec.abandon(ctx)
			return nil, e.rejectState(ctx, rt, d, expired)
		}
		defer func() { rec.finish(ctx, reply, err) }()
	}
	if req.RequestState != "" {
		if err := e.loadReference(ctx, d, env, pHash); err != nil {
			var se *stateError
			if errors.As(err, &se) {
				return nil, e.rejectState(ctx, rt, d, err)
			}
			return nil, err
		}
		if err := p.LoadContinuation(f, env.data); err != nil {
			return nil, e.rejectState(ctx, rt, d, &stateError{reason: "corrupt_data", err: err})
		}
	}
	p.SetState(f, env.state)

	r := &Round{
		e: e, d: d, call: call, req: &req, inputs: inputs,
		snapshot:   func() []byte { return p.AppendContinuation(nil, f) },
		restore:    func(b []byte) error { return p.LoadContinuation(f, b) },
		argsDigest: argsDigest, workflow: call.WorkflowID, pHash: pHash, hasRecord: rec != nil,
	}
	if req.RequestState != "" {
		if changed := env.pinQuestions(d.State(env.state), p.Questions(f, env.state)); len(changed) > 0 {
			call.Logger.Info("mrtr: questions changed since they were sent; asking them again", "requests", changed)
		}
		r.resumedAt, r.sent = env.state, env.sent
	}

	var path []string
	detached := false
	for steps := 0; ; steps++ {
		if r.effected && !detached {
			// A side effect happened: finish the round and record its reply
			// even if the client goes away now, or its retry would do the
			// effect again (or misreport it).
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), e.cfg.Lease)
			defer cancel()
			detached = true
		}
		if err := ctx.Err(); err != nil {
			rt.outcome = "cancelled"
			return nil, err
		}
		if steps >= e.cfg.MaxSteps {
			return nil, fmt.Errorf("mrtr: %s ran %d states in one round without asking for input (a loop?)", d.Name, steps)
		}
		cur := p.State(f)
		info := d.State(cur)
		if info == nil {
			return nil, fmt.Errorf("%w %d in %s", ErrUnknownState, cur, d.Name)
		}
		r.current = cur
		st, err := p.Step(ctx, r, f)
		if err != nil {
			reply, err := e.stepFailed(ctx, rt, d, call, info, err)
			if reply != nil {
				reply.Path = append(path, info.Name)
				e.consume(ctx, d, &req, call)
			}
			return reply, err
		}
		rt.visit(info.Name)
		path = append(path, info.Name)
		switch st.kind {
		case stepGoto:
			if !d.allows(cur, st.next) {
				return nil, fmt.Errorf("mrtr: %s: transition %s → %d is not in the table", d.Name, info.Name, st.next)
			}
			if cur == r.resumedAt {
				r.leftResumed = true // its answers are used up: a loop back asks again
			}
			p.SetState(f, st.next)
		case stepAsk:
			if problems := p.CheckContinuation(ctx, f); len(problems) > 0 {
				return nil, fmt.Errorf("mrtr: %s: at state %s the continuation breaks the spec (a handler stored a value it does not allow): %s", d.Name, info.Name, strings.Join(problems, "; "))
			}
			next := &envelope{workflow: env.workflow, state: cur, round: env.round + 1, data: p.AppendContinuation(nil, f)}
			reply, err := e.askReply(ctx, d, binding, next, pHash, caps, st.ask, p.Questions(f, cur))
			if err == nil {
				rt.outcome = "input_required"
				reply.Path = path
			}
			return reply, err
		case stepFinish:
			e.consume(ctx, d, &req, call)
			rt.outcome = string(st.final.Outcome)
			return &Reply{Final: st.final, Path: path}, nil
		default:
			return nil, fmt.Errorf("mrtr: %s: state %s returned no step", d.Name, info.Name)
		}
	}
}

// consume deletes a finished workflow's server-side continuations, however
// it ended. Retries of the round replay its round record.
func (e *Engine) consume(ctx context.Context, d *Descriptor, req *Request, call *Call) {
	if d.Storage != Reference || e.cfg.Store == nil || req.RequestState == "" {
		return
	}
	cctx, cancel := detach(ctx)
	defer cancel()
	if err := e.cfg.Store.DeleteWorkflowStates(cctx, call.WorkflowID); err != nil {
		call.Logger.Warn("mrtr: deleting consumed continuations", "error", err)
	}
}

// stepFailed turns an error from a state into the round's outcome: the
// context's error goes back as is (the client cancelled), a Rejection ends
// the workflow with its message, anything else is a dependency failure
// surfaced as an error result.
func (e *Engine) stepFailed(ctx context.Context, rt *roundTelemetry, d *Descriptor, call *Call, info *StateInfo, err error) (*Reply, error) {
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ctx.Err())) {
		rt.outcome = "cancelled"
		return nil, ctx.Err()
	}
	if rej, ok := isRejection(err); ok {
		rt.outcome = string(OutcomeRejected)
		return &Reply{Final: &Final{Outcome: OutcomeRejected, Text: rej.msg}}, nil
	}
	if errors.Is(err, ErrUnknownState) {
		return nil, err
	}
	rt.outcome = string(OutcomeError)
	// The precise error is for the logs: it may name hosts, users or
	// queries. The client learns where it failed and may retry.
	call.Logger.Error("mrtr: state failed", "state", info.Name, "error", err)
	return &Reply{Final: &Final{Outcome: OutcomeError, Text: fmt.Sprintf("%s failed at %s: a dependency failed; try again later (workflow %s)", d.Name, info.Name, call.WorkflowID)}}, nil
}

// rejectState logs why a requestState was refused and returns the one
// error clients see.
func (e *Engine) rejectState(ctx context.Context, rt *roundTelemetry, d *Descriptor, err error) error {
	reason := "invalid"
	var se *stateError
	if errors.As(err, &se) {
		reason = se.reason
	}
	rt.outcome = "invalid_state"
	if reason == seal.Expired.String() {
		rt.outcome = "expired"
	}
	e.log.WarnContext(ctx, "mrtr: requestState rejected", "tool", d.Name, "reason", reason, "error", err, "instance", e.cfg.Instance)
	return invalidStateError()
}

// storeFailed answers a round whose round record could not be read or
// taken: nothing ran, so the client may retry. Protocol errors and the
// context's error go back as they are.
func (e *Engine) storeFailed(ctx context.Context, rt *roundTelemetry, d *Descriptor, err error) (*Reply, error) {
	var je *jsonrpc.Error
	if errors.As(err, &je) || ctx.Err() != nil {
		if ctx.Err() != nil {
			rt.outcome = "cancelled"
			return nil, ctx.Err()
		}
		return nil, err
	}
	rt.outcome = string(OutcomeError)
	e.log.ErrorContext(ctx, "mrtr: the store failed before the round ran", "tool", d.Name, "error", err)
	return &Reply{Final: &Final{Outcome: OutcomeError, Text: d.Name + ": the server's store is unavailable; try the same request again later"}}, nil
}

// replay returns a recorded reply to a retry. An input_required reply is
// sent only with the requests the retrying client can answer: one it no
// longer declares the capability of is left out when optional, and fails
// the round with -32021 when required (as a first reply would).
func (e *Engine) replay(d *Descriptor, caps *mcp.ClientCapabilities, reply *Reply) (*Reply, error) {
	if !reply.NeedsInput() {
		return reply, nil
	}
	var missing []string
	out := *reply
	out.InputRequests = mcp.InputRequestMap{}
	for key, params := range reply.InputRequests {
		q := d.requestInfo(key)
		if q == nil || hasCapability(caps, q.Kind.Capability()) {
			out.InputRequests[key] = params
			continue
		}
		if !q.Optional && !slices.Contains(missing, q.Kind.Capability()) {
			missing = append(missing, q.Kind.Capability())
		}
	}
	if len(missing) > 0 || len(out.InputRequests) == 0 {
		if len(missing) == 0 {
			for key := range reply.InputRequests {
				if q := d.requestInfo(key); q != nil && !slices.Contains(missing, q.Kind.Capability()) {
					missing = append(missing, q.Kind.Capability())
				}
			}
		}
		slices.Sort(missing)
		return nil, missingCapabilitiesError(missing)
	}
	return &out, nil
}

// askReply seals the continuation and builds the input_required reply,
// leaving out optional requests the client cannot answer and failing with
// -32021 when a required one cannot be sent.
func (e *Engine) askReply(ctx context.Context, d *Descriptor, b seal.Binding, env *envelope, pHash string, caps *mcp.ClientCapabilities, pending, questions []Pending) (*Reply, error) {
	reqs := mcp.InputRequestMap{}
	var missing []string
	info := d.State(env.state)
	for _, p := range pending {
		capName := p.Kind.Capability()
		if !hasCapability(caps, capName) {
			if !p.Optional && !slices.Contains(missing, capName) {
				missing = append(missing, capName)
			}
			continue
		}
		reqs[p.Key] = p.Params
		if i := info.request(p.Key); i >= 0 && i < 64 {
			env.sent |= 1 << i
		}
	}
	if len(missing) == 0 && len(reqs) == 0 {
		for _, p := range pending {
			if c := p.Kind.Capability(); !slices.Contains(missing, c) {
				missing = append(missing, c)
			}
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, missingCapabilitiesError(missing)
	}
	// The digests of the sent questions, as Questions renders them (without
	// the problems a re-ask adds): what the next round compares.
	for i, q := range info.Requests {
		if i >= 64 || env.sent&(1<<i) == 0 {
			continue
		}
		var digest uint64
		for _, now := range questions {
			if now.Key == q.Key {
				digest = questionDigest(now)
			}
		}
		env.digests = append(env.digests, digest)
	}
	token, err := e.sealState(ctx, d, b, env, pHash)
	if err != nil {
		return nil, err
	}
	return &Reply{InputRequests: reqs, RequestState: token}, nil
}
