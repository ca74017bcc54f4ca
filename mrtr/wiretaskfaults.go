package mrtr

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// Whose fault a task step's failure is. A step runs on whichever instance
// the executor picks, from a checkpoint another instance sealed, and the
// client holds nothing of it: no requestState, no checkpoint. So a
// checkpoint or continuation that does not open, or looks expired or
// issued in the future, says something about the instance (its clock, its
// key ring, its build, its store), not about the request: the step fails
// as a tasks.InstanceFault and runs again, with backoff, here or on
// another instance; if no instance can run it, the task fails with -32603
// naming the cause. Never -32602: that is the client's invalid params.
//
// The one exception is an answer that came late: when the step became due
// (the last answer arrived, tasks.StepInput.Due) after its continuation
// expired, by more than the tolerated clock skew, the client answered too
// late, and the task fails as a tools/call round would, with -32602.
//
// Clocks are compared with tasks.Config.ClockSkew of tolerance: the
// continuation's expiry is judged with it (not with the codec's own skew,
// meant for tokens a client holds), and a checkpoint issued further in the
// future than it is refused.

// malformedCheckpoint is a checkpoint that opened but does not decode: a
// bug, not a fault of this instance, and no other instance would do
// better.
type malformedCheckpoint struct{ err error }

func (m *malformedCheckpoint) Error() string { return "malformed checkpoint: " + m.err.Error() }

// checkpointFailed is the step's error for a checkpoint that does not
// open here.
func (tr *taskRunner[F]) checkpointFailed(ctx context.Context, in tasks.StepInput, err error) error {
	d := tr.p.Descriptor()
	if _, ok := errors.AsType[*malformedCheckpoint](err); ok {
		tr.e.log.ErrorContext(ctx, "mrtr: a task's checkpoint is malformed", "tool", d.Name, "task", in.TaskID, "error", err)
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error: the task's checkpoint is malformed"}
	}
	return &tasks.InstanceFault{Cause: "the task's checkpoint " + sealCause(err), Err: err}
}

// checkIssued refuses a checkpoint issued further in the future than the
// tolerated skew: this instance's clock is behind the one that sealed it,
// and whatever it sealed now would look expired to the others.
func (tr *taskRunner[F]) checkIssued(cp checkpoint) error {
	if cp.IssuedAt.IsZero() {
		return nil // sealed by an earlier build
	}
	now := tr.codec.Now()
	if ahead := cp.IssuedAt.Sub(now); ahead > tr.skew {
		return &tasks.InstanceFault{
			Cause: fmt.Sprintf("clock skew: the task's checkpoint was issued %v in the future by this instance's clock (tolerated clock skew %v); its clock is behind",
				roundDuration(ahead), tr.skew),
			Err: fmt.Errorf("checkpoint issued at %v, now %v", cp.IssuedAt, now),
		}
	}
	return nil
}

// roundFailed is the step's error for a round that failed before any
// state ran, for a reason of this instance: an InstanceFault, the -32602
// of an answer that came late, or nil (the round's error stands).
func (tr *taskRunner[F]) roundFailed(in tasks.StepInput, tround *taskRound) error {
	if err := tround.storeFailed; err != nil {
		return &tasks.InstanceFault{Cause: "the store was unavailable while loading the task's continuation", Err: err}
	}
	err := tround.rejected
	if err == nil {
		return nil
	}
	if se, ok := errors.AsType[*seal.Error](err); ok && se.Reason == seal.Expired {
		deadline := se.Expiry.Add(tr.skew)
		if in.Due.After(deadline) {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
				"the answers came %v after the task's question expired; start the operation again", roundDuration(in.Due.Sub(se.Expiry)))}
		}
		now := tr.stateCodec.Now()
		return &tasks.InstanceFault{
			Cause: fmt.Sprintf("clock skew: the task's continuation looks expired %v by this instance's clock, though the step was due %v before it expired (tolerated clock skew %v); its clock is ahead, or the step waited that long to run",
				roundDuration(now.Sub(se.Expiry)), roundDuration(se.Expiry.Sub(in.Due)), tr.skew),
			Err: err,
		}
	}
	if _, ok := errors.AsType[*seal.Error](err); ok {
		return &tasks.InstanceFault{Cause: "the task's continuation " + sealCause(err), Err: err}
	}
	reason := "invalid"
	if se, ok := errors.AsType[*stateError](err); ok {
		reason = se.reason
	}
	return &tasks.InstanceFault{Cause: "the task's continuation was refused on this instance (" + reason + ")", Err: err}
}

// sealCause says why a token the server sealed itself does not open here.
func sealCause(err error) string {
	se, ok := errors.AsType[*seal.Error](err)
	switch {
	case !ok:
		return "does not open on this instance"
	case se.Reason == seal.UnknownKey:
		return "is sealed under a key this instance's key ring lacks"
	case se.Reason == seal.Forged:
		return "does not authenticate under this instance's keys"
	}
	return "does not open on this instance (" + se.Reason.String() + ")"
}

func roundDuration(d time.Duration) time.Duration {
	if d > time.Second || d < -time.Second {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}
