package mrtr

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mrtrgen/mrtrgen/mrtr/seal"
)

// Rejection is a business refusal from a check or an effect: the request is
// understood but cannot be done ("ticket 12345 is already closed"). The
// workflow ends with an error result carrying the message, meant for the
// user and the model. Any other error from a handler is a dependency
// failure.
type Rejection struct{ msg string }

func (r *Rejection) Error() string { return r.msg }

// Reject returns a Rejection with a formatted message.
func Reject(format string, args ...any) error {
	return &Rejection{msg: fmt.Sprintf(format, args...)}
}

// Forbidden is what Authorize returns to refuse a caller. The message is
// shown to the client.
func Forbidden(format string, args ...any) error {
	return &Rejection{msg: fmt.Sprintf(format, args...)}
}

// ArgumentError reports arguments that fail their schema: each problem
// names the argument. Run ends the round with an error result of outcome
// OutcomeInvalidArguments carrying its message (prompts: JSON-RPC error
// -32602).
type ArgumentError struct {
	Problems []string
}

func (e *ArgumentError) Error() string {
	return "invalid arguments: " + strings.Join(e.Problems, "; ")
}

// Problems collects validation failures while decoding arguments or answers.
type Problems []string

// Addf records a problem.
func (p *Problems) Addf(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// Err returns nil when there are no problems.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	return &ArgumentError{Problems: slices.Clone(p)}
}

// JSON-RPC errors the engine returns. Clients see one message for every
// bad requestState; the precise reason is logged.
const (
	codeInvalidParams       = jsonrpc.CodeInvalidParams // -32602
	codeMissingCapabilities = -32021
)

func invalidStateError() error {
	return &jsonrpc.Error{Code: codeInvalidParams, Message: seal.PublicMessage}
}

// invalidArguments ends a round whose arguments fail validation. The MCP
// tools page counts input validation errors as tool execution errors
// (isError results, which a model reads and corrects), not protocol errors.
// An error from decoding that is not an *ArgumentError is not about the
// arguments (a handler's validator failed, say) and goes back as it is.
func invalidArguments(rt *roundTelemetry, err error) (*Reply, error) {
	var ae *ArgumentError
	if !errors.As(err, &ae) {
		return nil, err
	}
	rt.outcome = string(OutcomeInvalidArguments)
	return &Reply{Final: &Final{Outcome: OutcomeInvalidArguments, Text: ae.Error()}}, nil
}

// missingCapabilitiesError is -32021 with data.requiredCapabilities, a
// ClientCapabilities object naming each missing capability.
func missingCapabilitiesError(missing []string) error {
	caps := map[string]map[string]any{}
	for _, c := range missing {
		caps[c] = map[string]any{}
	}
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": caps})
	return &jsonrpc.Error{
		Code:    codeMissingCapabilities,
		Message: "missing required client capabilities: " + strings.Join(missing, ", "),
		Data:    data,
	}
}

func isRejection(err error) (*Rejection, bool) {
	var r *Rejection
	ok := errors.As(err, &r)
	return r, ok
}

// ErrGateChanged is the error of a continuation that passed a confirmation
// gate whose question is not the same on this build (its message, or the
// values it shows, changed): what the user confirmed is not what this
// build would have asked, so the workflow does not go on (log reason
// gate_changed).
var ErrGateChanged = errors.New("mrtr: a confirmation gate the workflow passed asks another question on this build")

// GateChanged is the error generated LoadContinuation returns for gate, a
// confirmation state the continuation passed under another question.
func GateChanged(gate string) error { return fmt.Errorf("%w: gate %s", ErrGateChanged, gate) }
