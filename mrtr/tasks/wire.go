package tasks

import (
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// GetParams are the params of tasks/get.
type GetParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// CancelParams are the params of tasks/cancel.
type CancelParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// UpdateParams are the params of tasks/update: answers to the input
// requests of an input_required task, by key.
type UpdateParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
}

// Task is the part every task message shares (SEP-2663's Task).
type Task struct {
	TaskID         string `json:"taskId"`
	Status         Status `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMs          int64  `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
}

// CreateTaskResult answers the tools/call that created a task: flat
// (Result & Task), resultType "task", no result, error, inputRequests or
// requestState.
type CreateTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	Task
}

// DetailedTask answers tasks/get: the task, with its pending
// inputRequests (input_required), its result (completed) or its error
// (failed).
type DetailedTask struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	Task
	InputRequests map[string]json.RawMessage `json:"inputRequests,omitempty"`
	Result        json.RawMessage            `json:"result,omitempty"`
	Error         *WireError                 `json:"error,omitempty"`
}

// Ack is the empty answer of tasks/update and tasks/cancel.
type Ack struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

func newAck() *Ack { return &Ack{ResultType: resultTypeComplete} }

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func taskOf(r *Record) Task {
	return Task{
		TaskID:         r.ID,
		Status:         r.Status,
		StatusMessage:  r.StatusMessage,
		CreatedAt:      stamp(r.CreatedAt),
		LastUpdatedAt:  stamp(r.UpdatedAt),
		TTLMs:          r.TTL.Milliseconds(),
		PollIntervalMs: r.PollInterval.Milliseconds(),
	}
}

func detailed(r *Record) *DetailedTask {
	d := &DetailedTask{ResultType: resultTypeComplete, Task: taskOf(r)}
	switch r.Status {
	case StatusInputRequired:
		if len(r.Pending) > 0 {
			d.InputRequests = r.Pending
		}
	case StatusCompleted:
		d.Result = r.Result
	case StatusFailed:
		d.Error = r.Error
	}
	return d
}
