package mrtr

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/failure"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/vocab"
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

// AskAgain is what a check returns to refuse an answer for a reason the
// user can fix ("ticket CHG-1 is not approved for release 4.2; pick
// another"): the workflow goes back to the ask its state's askAgain names,
// which is asked afresh with the message as its explanation. The spec
// bounds the loop (askAgain.maxAttempts): the refusal of the last allowed
// answer goes to askAgain.onExhausted instead. From a check whose state has
// no askAgain, or from anything else, it is a dependency failure.
func AskAgain(format string, args ...any) error {
	return &failure.AskAgainError{Message: fmt.Sprintf(format, args...)}
}

// Forbidden is what Authorize returns to refuse a caller. The message is
// shown to the client.
func Forbidden(format string, args ...any) error {
	return &Rejection{msg: fmt.Sprintf(format, args...)}
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

// usedWithOtherInputError refuses a requestState whose round was already
// answered with other input (the round record's fingerprint differs).
func usedWithOtherInputError() error {
	return &jsonrpc.Error{Code: codeInvalidParams, Message: "this requestState was already used with other input; start the operation again"}
}

// invalidArguments ends a round whose arguments fail validation. The MCP
// tools page counts input validation errors as tool execution errors
// (isError results, which a model reads and corrects), not protocol errors.
// An error from decoding that is not an *ArgumentError is not about the
// arguments (a handler's validator failed, say) and goes back as it is.
func invalidArguments(rt *roundTelemetry, err error) (*Reply, error) {
	var ae *failure.ArgumentError
	if !errors.As(err, &ae) {
		return nil, err
	}
	rt.outcome = string(OutcomeInvalidArguments)
	return &Reply{Final: &Final{Outcome: OutcomeInvalidArguments, Text: ae.Error()}}, nil
}

// missingCapabilitiesError is -32021 with data.requiredCapabilities, a
// ClientCapabilities object naming each missing capability: URL-mode
// elicitation as {"elicitation": {"url": {}}}.
func missingCapabilitiesError(missing []vocab.Capability) error {
	caps := map[string]map[string]any{}
	for _, c := range missing {
		top, sub, nested := strings.Cut(string(c), ".")
		if caps[top] == nil {
			caps[top] = map[string]any{}
		}
		if nested {
			caps[top][sub] = map[string]any{}
		}
	}
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": caps})
	return &jsonrpc.Error{
		Code:    codeMissingCapabilities,
		Message: "missing required client capabilities: " + joinCapabilities(missing),
		Data:    data,
	}
}

func isRejection(err error) (*Rejection, bool) {
	var r *Rejection
	ok := errors.As(err, &r)
	return r, ok
}

func joinCapabilities(cs []vocab.Capability) string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}
