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

	"github.com/mrtrgen/mrtrgen/mrtr/internal/stepkind"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// round is one request of a workflow as the engine serves it: the
// mrtrimpl.Round that generated Step code reads answers from, runs effects
// with and says what comes next to. It is not safe for concurrent use and
// lives for one request.
type round struct {
	e    *Engine
	d    *mrtrimpl.Descriptor
	call *Call
	req  *Request

	// resumedAt is the state the requestState was issued at (0 on the first
	// round), and sent the mask of its requests that were sent (see
	// envelope). Answers from inputResponses count only there, only for a
	// request that was sent, and only until the round leaves that state:
	// nobody answers, or confirms, what they were not shown, and a loop back
	// to the same question asks it again.
	resumedAt uint16
	sent      uint64
	current   uint16
	// inputs are answers supplied up front in the "inputs" argument
	// (non-interactive programs).
	inputs map[string]json.RawMessage

	// flow encodes and restores the flow's continuation for effect records
	// (the run the round belongs to).
	flow       flowContinuation
	argsDigest [32]byte
	// legacy is set when the round resumed a token of envelope version 1
	// or 2: its records are fingerprinted as the build that minted it did
	// (legacy arguments digest, state number), so a retry of a round that
	// started on that build replays.
	legacy    bool
	workflow  string
	pHash     string
	hasRecord bool // the round holds a round record (retries replay it)
	// effected is set once a side effect has run (or was replayed) in this
	// round: from then on the round finishes whatever the client does.
	effected bool
	// visits counts the round's visits of each effect state with the
	// workflow's own operation id (see operation); runs counts the runs of
	// each interactive state: only the first takes answers (a list, not a
	// map: a round runs few states, and most rounds one interactive one).
	visits map[uint16]int
	runs   []stateRuns
	// reasked are the asks a check sent the workflow back to in this round
	// (mrtr.AskAgain): no answer of this round counts there, not even one
	// given up front, which is the answer the check refused.
	reasked map[uint16]bool
	// pending are the effect recordings of this round; each channel is
	// closed when its recording is over (see Engine.record).
	pending []<-chan struct{}
	// rec is the round record (nil on a first round or without a store);
	// queued are the recordings the round owes until its next batch, and
	// nextState the continuation its reply will point to (by reference):
	// see roundbatch.go. ended is set when the workflow ended.
	rec       *roundRecord
	queued    []write
	nextState *store.StateRecord
	ended     bool
}

// flowContinuation is the flow of a round as effect records hold it; a
// *run is one (an interface, not closures, so a round allocates none).
type flowContinuation interface {
	// snapshot encodes the flow's continuation.
	snapshot() []byte
	// restore decodes an encoded continuation into the flow; restoreV2
	// the positional encoding of effect records written before envelope
	// version 3.
	restore(b []byte) error
	restoreV2(b []byte) error
}

func (r *round) snapshot() []byte         { return r.flow.snapshot() }
func (r *round) restore(b []byte) error   { return r.flow.restore(b) }
func (r *round) restoreV2(b []byte) error { return r.flow.restoreV2(b) }

// stateRuns is how many times a round ran an interactive state.
type stateRuns struct {
	state uint16
	n     int
}

// countRun counts a run of interactive state s.
func (r *round) countRun(s uint16) {
	for i := range r.runs {
		if r.runs[i].state == s {
			r.runs[i].n++
			return
		}
	}
	r.runs = append(r.runs, stateRuns{s, 1})
}

// runsOf is how many times the round ran state s.
func (r *round) runsOf(s uint16) int {
	for _, c := range r.runs {
		if c.state == s {
			return c.n
		}
	}
	return 0
}

// Call returns what handlers know about this round.
func (r *round) Call() *Call { return r.call }

// Request is the descriptor's row of input request key.
func (r *round) Request(key string) *mrtrimpl.RequestInfo { return r.d.Request(key) }

// Goto moves the workflow to state next. on names the transition ("next",
// "outcome:<name>", "decline", "cancel").
func (r *round) Goto(next uint16, on vocab.Edge) (mrtrimpl.Step, error) {
	return mrtrimpl.Step{Kind: stepkind.Goto, Next: next, On: on}, nil
}

// Finish ends the workflow with a result.
func (r *round) Finish(f Final) (mrtrimpl.Step, error) {
	return mrtrimpl.Step{Kind: stepkind.Finish, Final: &f}, nil
}

// Ask ends the round asking for the pending requests; the workflow stays in
// the current state.
func (r *round) Ask(p []mrtrimpl.Pending) (mrtrimpl.Step, error) {
	if len(p) == 0 {
		return mrtrimpl.Step{}, errors.New("mrtr: Ask with no requests")
	}
	return mrtrimpl.Step{Kind: stepkind.Ask, Ask: p}, nil
}

// Can reports whether the client declared the capability a request kind
// needs. Generated code skips optional requests the client cannot answer.
func (r *round) Can(k vocab.RequestKind) bool {
	return hasCapability(r.call.Capabilities, k.Capability())
}

// Run serves one round of program p: the whole trust boundary described in
// the package documentation. It returns the reply, or a *jsonrpc.Error for
// protocol-level failures (rejected requestState -32602, missing client
// capabilities -32021), or the context's error.
func Run[F any](ctx context.Context, e *Engine, p Program[F], req Request) (reply *Reply, err error) {
	rr := &run[F]{e: e, p: p, d: p.Descriptor(), req: req}
	ctx, rr.rt = e.tel.begin(ctx, e, rr.d, req.RequestState == "")
	defer func() { rr.rt.end(ctx, reply, err) }()
	// A panicking handler (or generated code) fails its round, not the
	// server: go-sdk runs handlers in goroutines without a recover, so an
	// unrecovered panic would end the process and every round in flight.
	// Claims are released by the deferred calls that run before this one.
	defer func() {
		if v := recover(); v != nil {
			e.log.ErrorContext(ctx, "mrtr: round panicked", "tool", rr.d.Name, "panic", v, "stack", string(debug.Stack()))
			rr.rt.outcome = "panic"
			reply, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
			if stored, serr := rr.replayAfterPanic(ctx); stored != nil || serr != nil {
				reply, err = stored, serr // an earlier attempt answered the round: its reply still wins
			}
		}
	}()
	// The round's last batch stores its reply in the round record (taken
	// by claimRound, or with the round's first effect), or releases the
	// record when the round failed, with what its effects owe.
	defer func() { reply, err = rr.finishRound(ctx, reply, err) }()

	// The trust boundary, in order: each step passes, or ends the round
	// with its reply or error.
	for _, step := range []func(context.Context) (*Reply, error){
		rr.checkCapabilities,
		rr.checkEveryPathNeeds,
		rr.decodeArguments,
		rr.authorize,
		rr.openContinuation,
		rr.claimRound,
		rr.loadContinuation,
	} {
		if reply, err := step(ctx); reply != nil || err != nil {
			return reply, err
		}
	}
	return rr.runStates(ctx)
}

// run is one round of Run as it goes through its steps.
type run[F any] struct {
	e   *Engine
	p   Program[F]
	d   *mrtrimpl.Descriptor
	req Request
	rt  *roundTelemetry

	caps       *mcp.ClientCapabilities
	call       *Call
	f          F
	inputs     map[string]json.RawMessage // up-front answers (non-interactive programs)
	pHash      string
	argsDigest [32]byte // of the arguments, as tokens of envelope 3 carry it
	// recordDigest fingerprints round and effect records: argsDigest, or
	// for a round resumed from a token of envelope 1 or 2 its legacy
	// digest, as the build that minted it fingerprinted them.
	recordDigest [32]byte
	binding      seal.Binding
	// legacyDigest is the arguments digest of tokens of envelope versions
	// 1 and 2, computed only for a token that needs it (legacyBinding).
	legacyDigest *[32]byte
	env          *envelope       // the continuation opened, or the new workflow's
	expired      error           // set for an authentic token past its expiry: replays only
	rec          *roundRecord    // nil on a first round, or without a store
	fetched      *store.OpResult // the continuation read with the round record (by reference)
	round        *round
}

func (rr *run[F]) resumed() bool { return rr.req.RequestState != "" }

// A run is its round's flowContinuation.
func (rr *run[F]) snapshot() []byte         { return rr.p.AppendContinuation(nil, rr.f) }
func (rr *run[F]) restore(b []byte) error   { return rr.p.LoadContinuation(rr.f, b) }
func (rr *run[F]) restoreV2(b []byte) error { return rr.p.LoadContinuationV2(rr.f, b) }

// checkCapabilities refuses a client without the capabilities the program
// needs on every round (-32021).
func (rr *run[F]) checkCapabilities(context.Context) (*Reply, error) {
	rr.caps = rr.req.Capabilities
	if rr.caps == nil {
		rr.caps = &mcp.ClientCapabilities{}
	}
	if missing := missingCapabilities(rr.caps, rr.d.Requires); len(missing) > 0 {
		rr.rt.outcome = "missing_capability"
		return nil, missingCapabilitiesError(missing)
	}
	return nil, nil
}

// checkEveryPathNeeds refuses, at a workflow's first round, a client
// without a capability that every way through the workflow needs
// (needs.go): -32021 before anything is asked and before any handler
// method (an argument's validator included) runs. Answers given up front
// ("inputs", non-interactive programs) may stand in for asking, so a round
// that carries some is left to the asks themselves, as are arguments that
// do not parse (decodeArguments says what is wrong with them).
func (rr *run[F]) checkEveryPathNeeds(context.Context) (*Reply, error) {
	if rr.resumed() {
		return nil, nil
	}
	missing := missingCapabilities(rr.caps, needsOnEveryPath(rr.d))
	if len(missing) == 0 {
		return nil, nil
	}
	if rr.d.NonInteractive {
		if _, inputs, err := splitInputs(rr.req.Arguments, true); err != nil || len(inputs) > 0 {
			return nil, nil //nolint:nilerr // arguments that do not parse are refused by validation, later in the round
		}
	}
	rr.rt.outcome = "missing_capability"
	return nil, missingCapabilitiesError(missing)
}

// decodeArguments decodes and validates the arguments (generated code, on
// every round) and derives what tokens are bound to.
func (rr *run[F]) decodeArguments(ctx context.Context) (*Reply, error) {
	e, d := rr.e, rr.d
	args, inputs, err := splitInputs(rr.req.Arguments, d.NonInteractive)
	if err != nil {
		return invalidArguments(rr.rt, err)
	}
	rr.inputs = inputs
	// WorkflowID and Round are known once the continuation is opened, after
	// Authorize; the logger gets them then.
	rr.call = &Call{Principal: rr.req.Principal, Capabilities: rr.caps, Instance: e.cfg.Instance, Round: 1,
		Logger: roundLogger(e.log, d.Name, "", 0)}
	if rr.f, err = rr.p.NewFlow(ctx, rr.call, args); err != nil {
		return e.argumentsFailed(ctx, rr.rt, d, err) // an argument validator may fail as a dependency
	}
	rr.pHash = e.principalHash(rr.req.Principal)
	rr.argsDigest = sha256.Sum256(rr.p.AppendArgs(append(make([]byte, 0, 128), "mrtrgen/args/v3\x00"...), rr.f))
	rr.recordDigest = rr.argsDigest
	// Tokens of envelope version 3 carry the arguments digest inside the
	// sealed envelope (openState compares it), so that a token presented
	// with other arguments is told from a forged one in the log (binding);
	// the seal binds audience, tool and principal.
	rr.binding = seal.Binding{Audience: e.cfg.Audience, Subject: d.Subject(), Principal: rr.pHash}
	return nil, nil
}

// legacyBinding is the binding of tokens of envelope versions 1 and 2:
// the seal's associated data includes the positional arguments digest.
// Only a token the current binding does not open pays for it.
func (rr *run[F]) legacyBinding() seal.Binding {
	if rr.legacyDigest == nil {
		d := sha256.Sum256(rr.p.AppendArgsV2([]byte("mrtrgen/args/v1\x00"), rr.f))
		rr.legacyDigest = &d
	}
	b := rr.binding
	b.ArgsDigest = *rr.legacyDigest
	return b
}

// authorize asks the handler on every round, before the continuation is
// even opened: an unauthorized caller learns nothing about a token.
func (rr *run[F]) authorize(ctx context.Context) (*Reply, error) {
	err := rr.p.Authorize(ctx, rr.f)
	if err == nil {
		return nil, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	rej, ok := isRejection(err)
	if !ok {
		// Authorize could not decide (its database is down, say): that is a
		// dependency failure, not a refusal.
		rr.rt.outcome = string(OutcomeError)
		rr.e.log.ErrorContext(ctx, "mrtr: authorization check failed", "tool", rr.d.Name, "error", err)
		return &Reply{Final: &Final{Outcome: OutcomeError, Text: fmt.Sprintf("%s: the authorization check failed; try again later", rr.d.Name)}}, nil
	}
	rr.rt.outcome = string(OutcomeUnauthorized)
	return &Reply{Final: &Final{Outcome: OutcomeUnauthorized, Text: "not authorized: " + rej.msg}}, nil
}

// openContinuation verifies the requestState, or starts a new workflow.
func (rr *run[F]) openContinuation(ctx context.Context) (*Reply, error) {
	e, d := rr.e, rr.d
	if !rr.resumed() {
		id, err := e.newWorkflowID()
		if err != nil {
			return nil, err
		}
		rr.env = &envelope{workflow: id, state: d.Initial, round: 1}
	} else {
		codec := e.cfg.Codec
		if rr.req.task != nil {
			codec = rr.req.task.codec
		}
		env, err := e.openState(codec, d, rr.binding, rr.legacyBinding, rr.argsDigest, rr.req.RequestState)
		if err != nil && (env == nil || e.cfg.Store == nil) {
			return nil, rr.rejectState(ctx, err)
		}
		rr.env, rr.expired = env, err
		if env.legacy() {
			rr.recordDigest = rr.legacyBinding().ArgsDigest
		}
	}
	rr.call.WorkflowID, rr.call.Round = rr.env.workflowID(), rr.env.round
	rr.call.Logger = roundLogger(e.log, d.Name, rr.call.WorkflowID, rr.env.round)
	rr.rt.workflow(rr.call.WorkflowID, rr.env.round)
	return nil, nil
}

// unclaimed answers a round whose claim came back with the reply a
// previous attempt stored (replayed) or with a store error.
func (rr *run[F]) unclaimed(ctx context.Context, reply *Reply, err error) (*Reply, error) {
	if reply != nil {
		rr.rt.replayed = true
		return rr.e.replay(rr.d, rr.caps, reply)
	}
	return rr.e.storeFailed(ctx, rr.rt, rr.d, err)
}

// claimRound takes the round record, or replays the reply a previous
// attempt of the round stored, also after its token expired (the record
// outlives it); an expired token starts nothing new.
func (rr *run[F]) claimRound(ctx context.Context) (*Reply, error) {
	e := rr.e
	if !rr.resumed() || e.cfg.Store == nil {
		return nil, nil
	}
	if rr.expired == nil {
		return rr.claimRoundWithState(ctx)
	}
	rec, reply, err := e.claimRound(ctx, rr.d, rr.env, rr.recordDigest, &rr.req, rr.inputs)
	if reply != nil || err != nil {
		return rr.unclaimed(ctx, reply, err)
	}
	if rr.expired != nil {
		rec.abandon(ctx)
		return nil, rr.rejectState(ctx, rr.expired)
	}
	rr.rec = rec
	return nil, nil
}

// loadContinuation restores what the workflow carries (fetching it from the
// store when it is kept by reference) and puts the flow in its state.
func (rr *run[F]) loadContinuation(ctx context.Context) (*Reply, error) {
	e, d, env := rr.e, rr.d, rr.env
	if rr.resumed() {
		if err := e.loadReference(ctx, d, env, rr.pHash, rr.fetched); err != nil {
			if _, ok := errors.AsType[*stateError](err); ok {
				return nil, rr.rejectState(ctx, err)
			}
			if rr.req.task != nil {
				rr.req.task.storeFailed = err
			}
			return nil, err
		}
		if err := rr.load(ctx, env); err != nil {
			return nil, rr.rejectState(ctx, err)
		}
	}
	rr.p.SetState(rr.f, env.state)
	return nil, nil
}

// load decodes the continuation of env into the flow and checks it against
// this build: a value whose kind changed, an enum value this build lacks,
// a gate passed under another question, or a carried value a narrowed
// constraint refuses ends here, with its reason (docs/evolution.md).
func (rr *run[F]) load(ctx context.Context, env *envelope) error {
	var err error
	if env.legacy() {
		err = rr.p.LoadContinuationV2(rr.f, env.data)
	} else {
		err = rr.p.LoadContinuation(rr.f, env.data)
	}
	if err != nil {
		return &stateError{reason: loadReason(err), err: err}
	}
	if problems := rr.p.CheckContinuation(ctx, rr.f); len(problems) > 0 {
		return refused(reasonNarrowed, "a carried value breaks this build's constraints: %s", strings.Join(problems, "; "))
	}
	return nil
}

// loadReason is the log reason of an error from LoadContinuation.
func loadReason(err error) string {
	var ke *binenc.KindError
	var ee *binenc.EnumError
	switch {
	case errors.As(err, &ke):
		return reasonTypeChanged
	case errors.As(err, &ee):
		return reasonEnumRemoved
	case errors.Is(err, mrtrimpl.ErrGateChanged):
		return reasonGateChanged
	}
	return reasonCorruptData
}

// newRound is the Round the states of this run see.
func (rr *run[F]) newRound(ctx context.Context) *round {
	p, f := rr.p, rr.f
	r := &round{
		e: rr.e, d: rr.d, call: rr.call, req: &rr.req, inputs: rr.inputs,
		flow:       rr,
		argsDigest: rr.recordDigest, workflow: rr.call.WorkflowID, pHash: rr.pHash, hasRecord: rr.rec != nil,
		legacy: rr.resumed() && rr.env.legacy(),
		rec:    rr.rec,
	}
	rr.round = r
	if rr.resumed() {
		// Answers count only for the questions sent, as they were sent.
		env := rr.env
		if changed := env.pinQuestions(rr.d.State(env.state), p.Questions(f, env.state)); len(changed) > 0 {
			rr.call.Logger.InfoContext(ctx, "mrtr: questions changed since they were sent; asking them again", "requests", changed)
		}
		r.resumedAt, r.sent = env.state, env.sent
	}
	return r
}

// runStates runs states until one asks for input or the workflow ends.
func (rr *run[F]) runStates(ctx context.Context) (*Reply, error) {
	e, d, p, f := rr.e, rr.d, rr.p, rr.f
	r := rr.newRound(ctx)
	path := make([]string, 0, 8) // the states this round runs; most rounds run a few
	detached := false
	for steps := 0; ; steps++ {
		if r.effected && !detached {
			// A side effect happened: finish the round and record its reply
			// even if the client goes away now, or its retry would do the
			// effect again (or misreport it).
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), e.cfg.Lease)
			defer cancel() //nolint:gocritic // deferInLoop: once per round (detached guards it); the timeout lasts until Run returns
			detached = true
		}
		if err := ctx.Err(); err != nil {
			rr.rt.outcome = "cancelled"
			return nil, err
		}
		if steps >= e.cfg.MaxSteps {
			return nil, fmt.Errorf("mrtr: %s ran %d states in one round without asking for input (a loop?)", d.Name, steps)
		}
		cur := p.State(f)
		info := d.State(cur)
		if info == nil {
			return nil, fmt.Errorf("%w %d in %s", mrtrimpl.ErrUnknownState, cur, d.Name)
		}
		r.current = cur
		if rr.req.deferAt != 0 && cur == rr.req.deferAt {
			return rr.deferRound(ctx, r, path) // tasks.go
		}
		if info.Kind.Interactive() {
			r.countRun(cur)
		}
		if info.Kind == vocab.StateCheck {
			r.flush(ctx) // a check may take long: an effect's outcome does not wait for it
		}
		st, err := p.Step(ctx, r, f)
		if err != nil {
			if s, ok := errors.AsType[*roundSettled](err); ok {
				return rr.settle(ctx, s)
			}
			reply, err := e.stepFailed(ctx, rr.rt, d, rr.call, info, err)
			if reply != nil {
				path = append(path, info.Name)
				reply.Path = path
				r.ended = true
			}
			return reply, err
		}
		rr.rt.visit(info.Name)
		path = append(path, info.Name)
		if st.Kind == stepkind.Goto {
			if !d.Allows(cur, st.Next, st.On) {
				return nil, fmt.Errorf("mrtr: %s: transition %s -(%s)-> %s is not in the table", d.Name, info.Name, st.On, stateName(d, st.Next))
			}
			if st.On == vocab.AskAgain {
				if r.reasked == nil {
					r.reasked = map[uint16]bool{}
				}
				r.reasked[st.Next] = true
			}
			p.SetState(f, st.Next)
			continue
		}
		return rr.endRound(ctx, r, info, st, path)
	}
}

// endRound turns the step that stopped the round into its reply: the
// questions (with the next continuation sealed), or the workflow's result.
func (rr *run[F]) endRound(ctx context.Context, r *round, info *mrtrimpl.StateInfo, st mrtrimpl.Step, path []string) (*Reply, error) {
	e, d, p, f := rr.e, rr.d, rr.p, rr.f
	if reply := rr.refuseURIs(ctx, r, st); reply != nil {
		return reply, nil
	}
	switch st.Kind {
	case stepkind.Ask:
		if problems := p.CheckContinuation(ctx, f); len(problems) > 0 {
			return nil, fmt.Errorf("mrtr: %s: at state %s the continuation breaks the spec (a handler stored a value it does not allow): %s", d.Name, info.Name, strings.Join(problems, "; "))
		}
		cur := p.State(f)
		next := &envelope{workflow: rr.env.workflow, args: rr.argsDigest, state: cur, round: rr.env.round + 1, data: p.AppendContinuation(make([]byte, 0, 256), f)}
		keep := func(rec store.StateRecord) { r.nextState = &rec } // stored with the round's reply
		reply, err := e.askReply(ctx, d, rr.binding, next, rr.pHash, rr.caps, st.Ask, p.Questions(f, cur), keep)
		if err == nil {
			rr.rt.outcome = "input_required"
			reply.Path = path
		}
		return reply, err
	case stepkind.Finish:
		r.ended = true
		rr.rt.outcome = string(st.Final.Outcome)
		return &Reply{Final: st.Final, Path: path}, nil
	}
	return nil, fmt.Errorf("mrtr: %s: state %s returned no step", d.Name, info.Name)
}

// refuseURIs ends the workflow rejected when the step would send a URI that
// checkURI refuses: the uri of a result's content item, or the url
// of a URL-mode elicitation, rendered from values a caller chose. The
// client learns only that the URI was refused; the log says why.
func (rr *run[F]) refuseURIs(ctx context.Context, r *round, st mrtrimpl.Step) *Reply {
	var bad error
	switch st.Kind {
	case stepkind.Finish:
		items := st.Final.Content
		for _, m := range st.Final.Messages {
			if m.Content != nil {
				items = append(items[:len(items):len(items)], *m.Content)
			}
		}
		for _, c := range items {
			// An empty uri is a resource's own contents: the engine fills in
			// the URI that was read, which matched the resource's template.
			if c.URI != "" {
				if err := checkURI(c.URI, contentItemURI); err != nil {
					bad = err
					break
				}
			}
		}
	case stepkind.Ask:
		for _, p := range st.Ask {
			if ep, ok := p.Params.(*mcp.ElicitParams); ok && p.Kind == vocab.ElicitURL {
				if err := checkURI(ep.URL, elicitationURL); err != nil {
					bad = fmt.Errorf("input request %q: %w", p.Key, err)
					break
				}
			}
		}
	}
	if bad == nil {
		return nil
	}
	rr.call.Logger.WarnContext(ctx, "mrtr: a URI rendered from the workflow's values is refused", "reason", bad.Error())
	r.ended = true
	rr.rt.outcome = string(OutcomeRejected)
	return &Reply{Final: &Final{Outcome: OutcomeRejected, Text: rr.d.Name + ": a URI built from the values given is not allowed"}}
}

// consume deletes a finished workflow's server-side continuations, however
// it ended. Retries of the round replay its round record. It waits for the
// round's effect recordings (one may still be writing the continuation it
// points to, when the store failed for a moment), and retries in the
// background when the store does not answer: a sensitive continuation must
// not outlive its workflow by its TTL.
func (e *Engine) consume(ctx context.Context, d *mrtrimpl.Descriptor, req *Request, call *Call, pending []<-chan struct{}) {
	if d.Storage != vocab.Reference || e.cfg.Store == nil || req.RequestState == "" {
		return
	}
	del := func(ctx context.Context) error { return e.cfg.Store.DeleteWorkflowStates(ctx, call.WorkflowID) }
	for _, p := range pending {
		select {
		case <-p:
			continue
		default:
		}
		e.recordLater("deletion of a finished workflow's continuations", call.WorkflowID, func(ctx context.Context) error {
			for _, p := range pending {
				<-p
			}
			return del(ctx)
		}, func() {})
		return
	}
	cctx, cancel := detach(ctx)
	defer cancel()
	if err := del(cctx); err != nil {
		call.Logger.Warn("mrtr: deleting consumed continuations; retrying in the background", "error", err)
		e.recordLater("deletion of a finished workflow's continuations", call.WorkflowID, del, func() {})
	}
}

// stepFailed turns an error from a state into the round's outcome: the
// context's error goes back as is (the client cancelled), a Rejection ends
// the workflow with its message, anything else is a dependency failure
// surfaced as an error result.
func (e *Engine) stepFailed(ctx context.Context, rt *roundTelemetry, d *mrtrimpl.Descriptor, call *Call, info *mrtrimpl.StateInfo, err error) (*Reply, error) {
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ctx.Err())) {
		rt.outcome = "cancelled"
		return nil, ctx.Err()
	}
	if rej, ok := isRejection(err); ok {
		rt.outcome = string(OutcomeRejected)
		return &Reply{Final: &Final{Outcome: OutcomeRejected, Text: rej.msg}}, nil
	}
	if errors.Is(err, mrtrimpl.ErrUnknownState) {
		return nil, err
	}
	if _, ok := mrtrimpl.AskingAgain(err); ok {
		// Generated code takes AskAgain only from a check whose state
		// declares askAgain: from anywhere else it is a bug of the
		// handler, and the spec says nowhere to go.
		err = fmt.Errorf("state %s (%s) returned mrtr.AskAgain, but the spec gives it no askAgain: %w", info.Name, info.Kind, err)
	}
	rt.outcome = string(OutcomeError)
	// The precise error is for the logs: it may name hosts, users or
	// queries. The client learns where it failed and may retry.
	call.Logger.Error("mrtr: state failed", "state", info.Name, "error", err)
	return &Reply{Final: &Final{Outcome: OutcomeError, Text: fmt.Sprintf("%s failed at %s: a dependency failed; try again later (workflow %s)", d.Name, info.Name, call.WorkflowID)}}, nil
}

// rejectState refuses the round's requestState (Engine.rejectState); in a
// task's step it also keeps why, for the step to tell whose fault it was.
func (rr *run[F]) rejectState(ctx context.Context, err error) error {
	if rr.req.task != nil {
		rr.req.task.rejected = err
	}
	return rr.e.rejectState(ctx, rr.rt, rr.d, err)
}

// rejectState logs why a requestState was refused and returns the one
// error clients see.
func (e *Engine) rejectState(ctx context.Context, rt *roundTelemetry, d *mrtrimpl.Descriptor, err error) error {
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
func (e *Engine) storeFailed(ctx context.Context, rt *roundTelemetry, d *mrtrimpl.Descriptor, err error) (*Reply, error) {
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
	return &Reply{Final: &Final{Outcome: OutcomeError, Text: d.Name + ": the server's store is unavailable; try the same request again later"}, nothingRan: true}, nil
}

// replay returns a recorded reply to a retry. An input_required reply is
// sent only with the requests the retrying client can answer: one it no
// longer declares the capability of is left out when optional, and fails
// the round with -32021 when required (as a first reply would).
func (e *Engine) replay(d *mrtrimpl.Descriptor, caps *mcp.ClientCapabilities, reply *Reply) (*Reply, error) {
	if !reply.NeedsInput() || len(reply.InputRequests) == 0 {
		return reply, nil // finished, or handed to a task (deferRound)
	}
	var missing []vocab.Capability
	out := *reply
	out.InputRequests = mcp.InputRequestMap{}
	for key, params := range reply.InputRequests {
		q := d.Request(key)
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
				if q := d.Request(key); q != nil && !slices.Contains(missing, q.Kind.Capability()) {
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
func (e *Engine) askReply(ctx context.Context, d *mrtrimpl.Descriptor, b seal.Binding, env *envelope, pHash string, caps *mcp.ClientCapabilities, pending, questions []mrtrimpl.Pending, keep func(store.StateRecord)) (*Reply, error) {
	reqs := mcp.InputRequestMap{}
	var missing []vocab.Capability
	info := d.State(env.state)
	for _, p := range pending {
		capName := p.Kind.Capability()
		if !hasCapability(caps, capName) {
			if !p.Optional && !slices.Contains(missing, capName) {
				missing = append(missing, capName)
			}
			continue
		}
		params, err := e.publicParams(d, p)
		if err != nil {
			return nil, err
		}
		reqs[p.Key] = params
		if i := info.RequestIndex(p.Key); i >= 0 && i < 64 {
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
	// The pins of the sent questions, as Questions renders them (without
	// the problems a re-ask adds): what the next round compares.
	for i, q := range info.Requests {
		if i >= 64 || env.sent&(1<<i) == 0 {
			continue
		}
		var digest uint64
		for _, now := range questions {
			if now.Key == q.Key {
				digest = pinnedDigest(info.Kind, now)
			}
		}
		env.digests = append(env.digests, digest)
	}
	token, err := e.sealState(ctx, d, b, env, pHash, keep)
	if err != nil {
		return nil, err
	}
	return &Reply{InputRequests: reqs, RequestState: token}, nil
}

// stateName is state s's name, or its number when the program has no such
// state (a bug the caller reports).
func stateName(d *mrtrimpl.Descriptor, s uint16) string {
	if info := d.State(s); info != nil {
		return info.Name
	}
	return fmt.Sprintf("state %d", s)
}
