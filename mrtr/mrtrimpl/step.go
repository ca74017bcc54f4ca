package mrtrimpl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/failure"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/stepkind"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// Step is what one state decided: go to another state, ask for input, or
// finish. Generated code gets Steps from the Round's methods; the engine
// reads them.
type Step struct {
	Kind  stepkind.Kind // what the engine reads; generated code never names it
	Next  uint16        // stepkind.Goto: the state to go to
	On    vocab.Edge    // stepkind.Goto: the transition taken
	Ask   []Pending     // stepkind.Ask: the requests to send
	Final *final        // stepkind.Finish: the result
}

// Round is one request of a workflow as the engine serves it. Generated
// Step code uses it to read answers, run effects and say what comes next;
// it is not safe for concurrent use and lives for one request.
type Round interface {
	// Response returns the client's answer to input request key, if this
	// round may take one: only at the state the workflow waited in, on the
	// state's first run in the round, and only for a request that was sent
	// as it would be sent now.
	Response(key string, kind vocab.RequestKind) response
	// Request is the descriptor's row of input request key (nil when the
	// program has none).
	Request(key string) *RequestInfo
	// Can reports whether the client declared the capability a request
	// kind needs. Generated code skips optional requests the client cannot
	// answer.
	Can(k vocab.RequestKind) bool
	// Goto moves the workflow to state next along edge on; the engine
	// refuses a move the transition table does not have.
	Goto(next uint16, on vocab.Edge) (Step, error)
	// Ask ends the round asking for the pending requests; the workflow stays
	// in the current state.
	Ask(p []Pending) (Step, error)
	// Finish ends the workflow with a result.
	Finish(f final) (Step, error)
	// Effect runs a side effect once per operation id (key) and moves to
	// next: a retry replays the recorded outcome instead of running it
	// again. retain is how long the record of a business operation id is
	// kept; an empty key is the workflow's own operation, whose record
	// lives as long as the workflow's (the engine's retention).
	Effect(ctx context.Context, key string, retain time.Duration, next uint16, run func(context.Context) error) (Step, error)
}

// Pending is one input request a state still needs answered.
type Pending struct {
	Key      string
	Kind     vocab.RequestKind
	Optional bool
	Params   mcp.InputRequest
}

// Goto is r.Goto for a program's own state type: generated Step code moves
// with it, so no state number is converted by hand.
func Goto[S ~uint16](r Round, next S, on vocab.Edge) (Step, error) {
	return r.Goto(uint16(next), on)
}

// ErrUnknownState is returned by generated Step code for a state number it
// does not know (a bug, or a corrupted flow).
var ErrUnknownState = errors.New("mrtr: unknown state")

// Effect is r.Effect for a program's own state type (see Goto).
func Effect[S ~uint16](ctx context.Context, r Round, key string, retain time.Duration, next S, run func(context.Context) error) (Step, error) {
	return r.Effect(ctx, key, retain, uint16(next), run)
}

// GateChanged is the error generated LoadContinuation returns for gate, a
// confirmation state the continuation passed under another question.
func (Export) GateChanged(gate string) error {
	return fmt.Errorf("%w: gate %s", failure.ErrGateChanged, gate)
}

// errNoApprovals is the error of an approval gate run by a Round that
// cannot keep approvals (a test double).
var errNoApprovals = errors.New("mrtr: this round cannot run approval gates")
