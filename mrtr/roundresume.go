package mrtr

import (
	"context"
	"errors"
	"strings"

	"github.com/mrtrgen/mrtrgen/mrtr/binenc"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/failure"
)

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
	case errors.Is(err, failure.ErrGateChanged):
		return reasonGateChanged
	}
	return reasonCorruptData
}
