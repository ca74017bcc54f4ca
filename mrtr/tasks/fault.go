package tasks

import (
	"errors"
	"time"
)

// Instance faults. Any instance that shares the store runs any step of a
// resumable task, and an instance can be broken in ways the request has
// nothing to do with: its clock is off by more than Config.ClockSkew, its
// key ring lacks the key a checkpoint was sealed with, it lost its store.
// A step that fails for such a reason must not fail the task (which would
// succeed on another instance): it runs again, with the executor's
// backoff, here or on another instance, and the task fails only when the
// executor gives up on it, with an internal error that names the cause.

// InstanceFault is what a StepFunc returns (or an error it returns wraps)
// when the step failed because of the instance that ran it, not because of
// the request. The step is not settled: its lease is released, the fault
// is recorded in the task's record (Record.Fault) and RunStep returns an
// error, so the executor runs the step again later, with backoff, on this
// instance or another (a tasks/get or tasks/update on another instance
// enqueues it there at once). If the executor gives up on the step
// (Abandoner), the task fails with -32603 and a message that names Cause.
//
// errors.Is(fault, ErrRunAgain) holds.
type InstanceFault struct {
	// Cause says what failed, for the client that finally sees the task
	// fail and for the record: no secret, no user data ("clock skew: the
	// checkpoint was issued 1h0m0s in the future ...").
	Cause string
	// Err is the precise error, for the logs.
	Err error
}

func (f *InstanceFault) Error() string {
	if f.Err == nil {
		return "tasks: instance fault: " + f.Cause
	}
	return "tasks: instance fault: " + f.Cause + ": " + f.Err.Error()
}

// Unwrap returns ErrRunAgain and Err.
func (f *InstanceFault) Unwrap() []error {
	if f.Err == nil {
		return []error{ErrRunAgain}
	}
	return []error{ErrRunAgain, f.Err}
}

// StepFault is what a task's record keeps of the last run of its step
// that failed with an InstanceFault, until the step settles.
type StepFault struct {
	// Instance is the instance whose run failed (Config.Instance, or an
	// id drawn when the Manager was made).
	Instance string `json:"instance"`
	// Cause is the fault's Cause.
	Cause string `json:"cause"`
	// Runs counts the faulted runs of the step.
	Runs int `json:"runs"`
}

// defaultClockSkew is Config.ClockSkew's default: NTP keeps clocks within
// milliseconds; two minutes covers a VM resumed from a pause or a host
// that lost its time source for a while, and no more.
const defaultClockSkew = 2 * time.Minute

// abandonMessage is the error of a task whose step an executor gave up
// on: it names the cause when an instance fault is known (the last run's
// error, or the one the record kept).
func abandonMessage(reason error, fault *StepFault) string {
	const msg = "the task could not be run"
	if f, ok := errors.AsType[*InstanceFault](reason); ok && f.Cause != "" {
		return msg + ": " + f.Cause
	}
	if fault != nil && fault.Cause != "" {
		return msg + ": " + fault.Cause
	}
	return msg
}
