package mrtr

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/stepkind"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// A round, in the order Run goes through it: this file (Run, the checks of
// the request: capabilities, arguments, authorization), roundresume.go
// (the requestState opened, the round claimed, the continuation loaded),
// roundstates.go (the spec's states run until one asks or ends, with
// roundanswers.go, roundeffects.go and roundapproval.go), roundreply.go
// (the reply: a replay, the next questions), roundfailures.go (a step, the
// store or the state refused) and roundfinish.go (what the round did
// recorded in one store batch). The round is the middle of the package's
// layers: it uses the records (record*.go) and the engine, and the wire
// (wire*.go) calls it (docs/architecture.md, "Inside mrtr").

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
	// see roundfinish.go. ended is set when the workflow ended.
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
// (roundneeds.go): -32021 before anything is asked and before any handler
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
