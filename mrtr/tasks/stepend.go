package tasks

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// How a step's end changes its task's record (Manager.settle in step.go
// stores the result): done, failed, cancelled, asking the client, waiting
// for someone else, or due again.

// end records on r how its step ended (settle): what it returned, unless
// the task's life was cut while it ran. It says what it did: "ended",
// "ask", "wait" or "resume".
func (r *Record) end(end StepEnd, pending map[string]json.RawMessage, result json.RawMessage, runErr error, cut, timedOut bool, now time.Time) string {
	switch {
	case runErr == nil && result != nil && !cut:
		// Done is done, even if a cancel came in after it was.
		r.settle(StatusCompleted, now)
		r.Result = result
	case r.CancelRequested:
		r.settle(StatusCancelled, now)
	case timedOut:
		r.settle(StatusFailed, now)
		r.Error = &WireError{Code: codeInternalError, Message: "task timed out"}
	case runErr != nil:
		r.settle(StatusFailed, now)
		r.Error = wireError(runErr)
	case result != nil:
		r.settle(StatusCompleted, now)
		r.Result = result
	case end.Wait != "":
		return r.wait(end.Wait, end.Checkpoint, now)
	default:
		return r.ask(pending, end.Checkpoint, now)
	}
	return "ended"
}

// encodeEnd turns what a step returned into what its record holds: the
// requests it asked (when it returned no result) or its result, as JSON; an
// error doing so becomes the step's error.
func encodeEnd(end StepEnd, runErr error) (pending map[string]json.RawMessage, result json.RawMessage, err error) {
	if runErr != nil {
		return nil, nil, runErr
	}
	if end.Result == nil && end.Wait != "" {
		return nil, nil, nil
	}
	if end.Result == nil {
		pending, err = askedRequests(end.Ask)
		return pending, nil, err
	}
	if result, err = json.Marshal(end.Result); err != nil {
		return nil, nil, &jsonrpc.Error{Code: codeInternalError, Message: "result not serialisable"}
	}
	return nil, result, nil
}

// ask makes r wait for the answers to pending, the next step to run from
// checkpoint; it fails r instead if a key was asked before in this task (an
// answer to it could be a replay). It says which it did: "ask" or "ended".
func (r *Record) ask(pending map[string]json.RawMessage, checkpoint []byte, now time.Time) string {
	for key := range pending {
		if slices.Contains(r.UsedKeys, key) {
			r.settle(StatusFailed, now)
			r.Error = wireError(fmt.Errorf("%w: %q", ErrKeyReused, key))
			return "ended"
		}
	}
	r.UsedKeys = slices.AppendSeq(r.UsedKeys, maps.Keys(pending))
	slices.Sort(r.UsedKeys)
	r.Status = StatusInputRequired
	r.Pending, r.Answers, r.Lease, r.Fault = pending, nil, nil, nil
	r.Step++
	r.Checkpoint = checkpoint
	r.UpdatedAt = now
	return "ask"
}

// wait makes r wait, working, for Resume, the next step to run from
// checkpoint; a Resume that came while the step ran makes the next step
// due at once instead. It says which it did: "wait" or "resume".
func (r *Record) wait(message string, checkpoint []byte, now time.Time) string {
	r.Pending, r.Answers, r.Lease, r.Fault = nil, nil, nil, nil
	r.Step++
	r.Checkpoint = checkpoint
	r.StatusMessage = message
	r.UpdatedAt = now
	if r.Resumed {
		r.Resumed, r.Due = false, now
		return "resume"
	}
	r.Waiting = true
	return "wait"
}

// settle makes r terminal with status: what it waited for, its lease and
// its checkpoint go (Result and Error are the caller's to set).
func (r *Record) settle(status Status, now time.Time) {
	r.Status = status
	r.Pending, r.Answers, r.Checkpoint, r.Lease, r.Fault = nil, nil, nil, nil, nil
	r.UpdatedAt = now
}

// due is when the record's step became due (Record.Due); for a record of
// an earlier build, which has none, its creation for step 1 and its last
// update for a later step.
func (r *Record) due() time.Time {
	switch {
	case !r.Due.IsZero():
		return r.Due
	case r.Step <= 1:
		return r.CreatedAt
	}
	return r.UpdatedAt
}
