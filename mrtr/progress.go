package mrtr

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/progress"
)

// Progress is the progress reporter the handler methods of checks and
// effects that declare progress: true get: Report sends
// notifications/progress on the progressToken of the request that runs the
// state, over that request's response stream, and nothing once the request
// has been answered (generated code finds it with mrtrimpl.X.ProgressOf).
type Progress = progress.Reporter

// Errors of Progress.Report.
var (
	ErrProgressDone      = progress.ErrDone
	ErrProgressBackwards = progress.ErrBackwards
)

// requestProgress returns ctx with the reporter of one request (token is
// its _meta.progressToken, nil when it sent none; ss the session to send
// on), and the function that ends the reporter when the request is
// answered. The notification is sent with the request's own context, so
// the SDK writes it to that request's response stream.
func requestProgress(ctx context.Context, ss *mcp.ServerSession, token any) (context.Context, func()) {
	var sink progress.Sink
	if token != nil && ss != nil {
		reqCtx := ctx
		sink = func(_ context.Context, value, total float64, message string) error {
			return ss.NotifyProgress(reqCtx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: value, Total: total, Message: message})
		}
	}
	p, end := progress.New(sink)
	return progress.With(ctx, p), end
}
