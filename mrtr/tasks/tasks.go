// Package tasks implements the MCP Tasks extension (SEP-2663,
// io.modelcontextprotocol/tasks) on go-sdk's extension points: a tool that
// takes time answers tools/call with a CreateTaskResult, runs detached from
// the request, and the client follows it with tasks/get, answers its input
// requests with tasks/update and stops it with tasks/cancel.
//
// Tasks and MRTR (SEP-2322) compose: a tool's handler runs its interactive
// rounds as usual (input_required results with requestState) and, once it
// has what it needs, calls [Start] to hand the long-running part to a task;
// the tools/call round that calls Start is answered with the
// CreateTaskResult instead of the handler's own result. Inside the task,
// [Run.Ask] asks the client through the extension's own input path
// (inputRequests on tasks/get, inputResponses on tasks/update); a task
// never carries requestState.
//
// A task of Start lives in one goroutine of the instance that created it.
// A resumable task ([Manager.AddResumableTool], [StartResumable]) is a
// sequence of steps between checkpoints kept in its record, run by an
// [Executor] on any instance that shares the [Store]: it survives the
// instance that started it, holds nothing while it waits for input, and
// its effects see tasks/cancel through [EffectContext].
//
// The package needs nothing of mrtrgen beyond go-sdk: it is small enough to
// upstream.
package tasks

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ExtensionID is the identifier of the Tasks extension under
// capabilities.extensions.
const ExtensionID = "io.modelcontextprotocol/tasks"

// Methods of the extension. tasks/result and tasks/list of the first tasks
// design are gone: the result is inlined on tasks/get.
const (
	MethodGet    = "tasks/get"
	MethodUpdate = "tasks/update"
	MethodCancel = "tasks/cancel"
)

// JSON-RPC error codes the extension uses.
const (
	codeInvalidParams        = -32602
	codeInternalError        = -32603
	codeHeaderMismatch       = mcp.CodeHeaderMismatch                    // -32020
	codeMissingCapabilities  = mcp.CodeMissingRequiredClientCapabilities // -32021
	metaClientCapabilities   = "io.modelcontextprotocol/clientCapabilities"
	headerName               = "Mcp-Name"
	headerProtocol           = "Mcp-Protocol-Version"
	protocolTasks            = "2026-07-28" // the first revision with the extension
	resultTypeTask           = "task"
	resultTypeComplete       = "complete"
	minEntropyBytes          = 16 // 128 bits
	taskIDBytes              = 32 // 256 bits: above the 128 the brief asks
	defaultTTL               = time.Hour
	defaultPollInterval      = time.Second
	defaultStepLease         = 30 * time.Second
	defaultSweepInterval     = time.Minute
	maxInputRequestsPerRound = 64
)

// Support says when a tool runs as a task (SEP-2663's taskSupport).
type Support int

const (
	// Optional: the tool runs as a task when the client declared the
	// extension on a request of 2026-07-28 or later, synchronously
	// otherwise (an older session that declares it included: its era has
	// no task results).
	Optional Support = iota + 1
	// Required: the tool runs only as a task; a client that did not declare
	// the extension, or is on an older protocol, gets -32021 (Missing
	// Required Client Capability).
	Required
)

func (s Support) String() string {
	switch s {
	case Optional:
		return "optional"
	case Required:
		return "required"
	}
	return "forbidden"
}

// Status is a task's status on the wire.
type Status string

const (
	StatusWorking       Status = "working"
	StatusInputRequired Status = "input_required"
	StatusCompleted     Status = "completed"
	StatusFailed        Status = "failed"
	StatusCancelled     Status = "cancelled"
)

// Terminal reports whether no further transition can happen.
func (s Status) Terminal() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCancelled
}

// ErrNotFound reports an unknown task, an expired one, or one that belongs
// to another principal (the three look the same to the caller).
var ErrNotFound = errors.New("tasks: task not found")

// ErrKeyReused reports an input key that the task already used: keys are
// unique for the task's lifetime, so an answer can never be taken for
// another question.
var ErrKeyReused = errors.New("tasks: input key already used by this task")

// Record is a task as stored. It is plain data (JSON-serialisable) so that
// a store shared by every instance can hold it.
type Record struct {
	ID            string        `json:"id"`
	Tool          string        `json:"tool"`
	Principal     string        `json:"principal"` // salted hash, never the raw identity
	Status        Status        `json:"status"`
	StatusMessage string        `json:"statusMessage,omitempty"`
	CreatedAt     time.Time     `json:"createdAt"`
	UpdatedAt     time.Time     `json:"updatedAt"`
	TTL           time.Duration `json:"ttl"`
	PollInterval  time.Duration `json:"pollInterval"`
	// Pending are the input requests the task waits for, as
	// mcp.InputRequestMap JSON (method + params by key).
	Pending map[string]json.RawMessage `json:"pending,omitempty"`
	// Answers are responses delivered by tasks/update and not yet taken by
	// the task.
	Answers map[string]json.RawMessage `json:"answers,omitempty"`
	// UsedKeys are every input key the task ever asked.
	UsedKeys []string `json:"usedKeys,omitempty"`
	// CancelRequested is set by tasks/cancel; the runner sees it and ends
	// the task's context.
	CancelRequested bool `json:"cancelRequested,omitempty"`
	// Result is the tool's result (completed), as CallToolResult JSON.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the protocol error of a failed task.
	Error *WireError `json:"error,omitempty"`
	// Owner is the instance that created the task (and, for a task of
	// Start, runs it).
	Owner string `json:"owner,omitempty"`

	// The fields below are those of a resumable task (AddResumableTool);
	// Step is 0 for a task of Start.

	// Step is the step the task is at: running or waiting to run while
	// working, waiting for its answers while input_required.
	Step int `json:"step,omitempty"`
	// Checkpoint is what the step function left for Step to resume from;
	// opaque to this package.
	Checkpoint []byte `json:"checkpoint,omitempty"`
	// Deadline ends the task (failed, "task timed out"): created plus
	// ToolOptions.Timeout; zero: none.
	Deadline time.Time `json:"deadline,omitzero"`
	// Lease is held by the runner running Step, renewed while it runs.
	Lease *Lease `json:"lease,omitempty"`
	// Due is when Step became due to run: the task's creation for step
	// 1, the tasks/update that delivered its last answer for a later step
	// (on the clock of the instance that recorded it). A step tells by it
	// whether the client answered in time (StepInput.Due).
	Due time.Time `json:"due,omitzero"`
	// Fault is the last run of Step that failed on its instance
	// (InstanceFault), until Step settles.
	Fault *StepFault `json:"fault,omitempty"`
	// Waiting is set while the task waits, working, for Resume (a step
	// ended with StepEnd.Wait): Step is not enqueued until then. Resumed
	// records a Resume that came while the step before was still running:
	// the wait it ends with is over at once (the signal is kept, not lost).
	Waiting bool `json:"waiting,omitempty"`
	Resumed bool `json:"resumed,omitempty"`
	// Sealed holds Pending, Answers, Result, Error and Checkpoint sealed
	// by Config.Sealer (those fields are then empty in the store).
	Sealed []byte `json:"sealed,omitempty"`
}

// Lease says which runner runs a step, and until when it may be trusted
// to: a lease past Until belongs to a runner presumed dead.
type Lease struct {
	Runner string    `json:"runner"`
	Until  time.Time `json:"until"`
}

// leaseLive reports whether a runner holds a lease on the record's step
// that has not run out.
func (r *Record) leaseLive(now time.Time) bool {
	return r.Lease != nil && now.Before(r.Lease.Until)
}

// ExpiresAt is when the record may be swept: TTL after its last update
// (so a finished task's result stays for its TTL), or after its lease
// ends (so a step that runs longer than the TTL keeps its record).
func (r *Record) ExpiresAt() time.Time {
	last := r.UpdatedAt
	if r.Lease != nil && r.Lease.Until.After(last) {
		last = r.Lease.Until
	}
	return last.Add(r.TTL)
}

// WireError is a JSON-RPC error object.
type WireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// newTaskID returns a URL-safe task id of 256 random bits.
func newTaskID() (string, error) {
	b := make([]byte, taskIDBytes)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
