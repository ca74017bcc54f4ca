package mrtr

import (
	"github.com/mrtrgen/mrtrgen/mrtr/internal/handlertypes"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// Final is the result of a finished workflow (Reply.Final): its Outcome,
// a tool's result Text, or a prompt's Messages (PromptMessage: Role, Text).
type Final = handlertypes.Final

// PromptMessage is one message of a prompt's result.
type PromptMessage = handlertypes.PromptMessage

// Outcome is how a workflow ended (Reply.Final.Outcome, the mcp.mrtr.*
// metrics, the round's log record).
type Outcome = vocab.Outcome

// The outcomes of a workflow. A spec's terminal states end with the first
// three; the engine ends a round with the others.
const (
	OutcomeSuccess   = vocab.OutcomeSuccess
	OutcomeCancelled = vocab.OutcomeCancelled // the user declined or cancelled
	OutcomeFailed    = vocab.OutcomeFailed    // a terminal state of outcome failed

	OutcomeRejected     = vocab.OutcomeRejected     // a check or effect rejected the request
	OutcomeUnauthorized = vocab.OutcomeUnauthorized // Authorize refused
	OutcomeError        = vocab.OutcomeError        // a dependency failed
	// OutcomeInvalidArguments: the arguments failed validation; the result
	// names each problem so the caller (often a model) can correct them.
	// Prompts turn it into JSON-RPC error -32602.
	OutcomeInvalidArguments = vocab.OutcomeInvalidArguments
)
