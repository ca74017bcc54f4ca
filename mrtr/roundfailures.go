package mrtr

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/vocab"
)

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
	if _, ok := mrtrimpl.X.AskingAgain(err); ok {
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
