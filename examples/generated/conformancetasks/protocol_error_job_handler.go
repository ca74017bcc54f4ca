package conformancetasks

import (
	"context"
	"fmt"
	"time"
)

// workerPatience bounds protocol_error_job's wait on a context without a
// deadline. The job runs only as a task, whose timeout (300ms) is much
// shorter; a test harness may run its rounds without one.
const workerPatience = time.Minute

// ProtocolErrorJobImpl implements ProtocolErrorJobHandler for tool
// protocol_error_job: a job waiting for a worker that never answers. The
// spec bounds its task (task.timeout): when the bound is up, the task's
// context ends, the check returns the context's error and the task fails
// with a JSON-RPC error (-32603) instead of a tool result, the
// protocol-level failure the suite checks for. Nothing panics: this is
// the path of any task that overruns its bound.
type ProtocolErrorJobImpl struct{}

var _ ProtocolErrorJobHandler = (*ProtocolErrorJobImpl)(nil)

// Authorize allows every caller, anonymous included: the conformance suite
// does not authenticate.
func (*ProtocolErrorJobImpl) Authorize(context.Context, *ProtocolErrorJobFlow) error { return nil }

// AwaitWorker waits until ctx ends and returns its error; after
// workerPatience it gives up, a dependency failure.
func (*ProtocolErrorJobImpl) AwaitWorker(ctx context.Context, _ *ProtocolErrorJobFlow) error {
	if err := wait(ctx, workerPatience); err != nil {
		return err
	}
	return fmt.Errorf("protocol_error_job: no worker answered within %s", workerPatience)
}
