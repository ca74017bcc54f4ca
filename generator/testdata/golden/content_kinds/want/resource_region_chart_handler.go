// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package content_kinds

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// RegionChartImpl implements RegionChartHandler for resource region_chart.
// Give it what the methods need: a database handle, API clients.
type RegionChartImpl struct{}

var _ RegionChartHandler = (*RegionChartImpl)(nil)

// Authorize decides whether f.Call.Principal may run region_chart with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *RegionChartImpl) Authorize(ctx context.Context, f *RegionChartFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("region_chart: Authorize is not implemented yet")
}

// Chart gives the bytes of the resource () that state done returns. It runs when the workflow ends
// there (a retry may run it again); a replayed round sends the recorded result. Returning no bytes,
// or an error, fails the round as a dependency failure (the error goes to the log only).
func (h *RegionChartImpl) Chart(ctx context.Context, f *RegionChartFlow) ([]byte, error) {
	// TODO: return the bytes of chart.
	return nil, errors.New("region_chart: Chart is not implemented yet")
}

// Regions completes argument region on completion/complete: the values to offer for what the user
// typed so far (value), best first; resolved holds the arguments the client already chose.
// At most 100 are sent. An error is logged and answered as an internal error.
func (h *RegionChartImpl) Regions(ctx context.Context, value string, resolved map[string]string) ([]string, error) {
	// TODO: return the values that complete value, best first.
	return nil, errors.New("region_chart: Regions is not implemented yet")
}
