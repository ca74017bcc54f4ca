package conformance

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLoggingToolImpl implements TestLoggingToolHandler for tool
// test_logging_tool: it sends one info log message to the client over the
// request's session (Register puts the session in the context). The SDK
// delivers it only when the client asked for logs (the request's
// _meta logLevel on 2026-07-28, logging/setLevel on older sessions):
// conformance checks that a request without a log level gets none.
type TestLoggingToolImpl struct{}

var _ TestLoggingToolHandler = (*TestLoggingToolImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*TestLoggingToolImpl) Authorize(context.Context, *TestLoggingToolFlow) error { return nil }

// EmitLog logs "test_logging_tool was called" at level info to the client,
// and to the server's own log.
func (*TestLoggingToolImpl) EmitLog(ctx context.Context, f *TestLoggingToolFlow) error {
	if f.Call.Logger != nil {
		f.Call.Logger.InfoContext(ctx, "test_logging_tool: sending a log message to the client")
	}
	ss := SessionFrom(ctx)
	if ss == nil {
		return nil // not served through Register (e.g. the generated tests): nobody to log to
	}
	// Logging is deprecated by MCP 2026-07-28 (SEP-2577) but still works, and
	// the conformance suite tests it (server-stateless).
	//lint:ignore SA1019 the conformance suite tests logging, which works through the deprecation window
	return ss.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "conformance", Data: "test_logging_tool was called"})
}
