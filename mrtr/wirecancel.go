package mrtr

import (
	"context"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Every error the runtime hands go-sdk carries a JSON-RPC code: go-sdk
// sends any other error as it is, with code 0, which no client can act on
// (and which JSON-RPC does not define).

// Codes for a request whose own context ended. MCP defines none; these are
// the ones clients already know: -32800 is LSP's RequestCancelled, -32001
// the TypeScript SDK's RequestTimeout. A client rarely sees either: a call
// it cancelled is not answered over mrtr.Handler (wirecancelhttp.go), and a
// call whose connection or session is gone has nobody to answer.
const (
	codeRequestCancelled = -32800
	codeRequestTimedOut  = -32001
)

// endedError is the error of a request whose context ended: its code and
// message on the wire, and the context's error for errors.Is (a task step
// that sees context.Canceled knows it was cut).
type endedError struct {
	wire  *jsonrpc.Error
	cause error
}

func (e *endedError) Error() string   { return e.wire.Message }
func (e *endedError) Unwrap() []error { return []error{e.wire, e.cause} }

// requestEnded returns the coded error of a request whose context ctx has
// ended, and false while ctx is live: a context error then is a failure
// inside the server (a store call's own timeout), not the request's end.
func requestEnded(ctx context.Context) (error, bool) {
	switch err := ctx.Err(); {
	case err == nil:
		return nil, false
	case errors.Is(err, context.DeadlineExceeded):
		return &endedError{wire: &jsonrpc.Error{Code: codeRequestTimedOut, Message: "request timed out"}, cause: err}, true
	default:
		return &endedError{wire: &jsonrpc.Error{Code: codeRequestCancelled, Message: "request cancelled"}, cause: err}, true
	}
}

// codedErrorsAdded lists the servers codedErrors has wrapped, weakly.
var codedErrorsAdded sync.Map // weak.Pointer[mcp.Server] -> struct{}

// codedErrors adds, once per server, a receiving middleware that gives
// every error without a JSON-RPC code one: the request's end (above) when
// its context ended, -32603 otherwise, with the error's text (what go-sdk
// would have sent with code 0: its own errors are meant to be read). The
// runtime's own paths shape their errors (Engine.wireError); this is the
// net under everything else a server serves (go-sdk's, a hand-written
// handler's, the tasks extension's).
func codedErrors(s *mcp.Server) {
	addOnce(&codedErrorsAdded, s, s.AddReceivingMiddleware, func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err == nil {
				return res, nil
			}
			if _, ok := errors.AsType[*jsonrpc.Error](err); ok {
				return res, err
			}
			if ended, ok := requestEnded(ctx); ok {
				return nil, ended
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
	})
}
