// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package names

import (
	"context"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// HTTPServerV2Impl implements HTTPServerV2Handler for tool HTTPServer-v2.
// Give it what the methods need: a database handle, API clients.
type HTTPServerV2Impl struct{}

var _ HTTPServerV2Handler = (*HTTPServerV2Impl)(nil)

// Authorize decides whether f.Call.Principal may run HTTPServer-v2 with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *HTTPServerV2Impl) Authorize(ctx context.Context, f *HTTPServerV2Flow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("HTTPServer-v2: Authorize is not implemented yet")
}
