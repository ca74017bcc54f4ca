// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package content_kinds

import (
	"context"
	"errors"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// RenderChartImpl implements RenderChartHandler for tool render_chart.
// Give it what the methods need: a database handle, API clients.
type RenderChartImpl struct{}

var _ RenderChartHandler = (*RenderChartImpl)(nil)

// Authorize decides whether f.Call.Principal may run render_chart with f.Args. It runs
// on every round, before the continuation is opened, because a decision from an
// earlier round may no longer hold. Return mrtr.Forbidden to refuse.
func (h *RenderChartImpl) Authorize(ctx context.Context, f *RenderChartFlow) error {
	// TODO: decide from f.Call.Principal and f.Args; refuse with mrtr.Forbidden.
	return mrtr.Forbidden("render_chart: Authorize is not implemented yet")
}

// Chart gives the bytes of the image (image/png) that state done returns. It runs when the workflow
// ends there (a retry may run it again); a replayed round sends the recorded result. Returning no
// bytes, or an error, fails the round as a dependency failure (the error goes to the log only).
func (h *RenderChartImpl) Chart(ctx context.Context, f *RenderChartFlow) ([]byte, error) {
	// TODO: return the bytes of chart.
	return nil, errors.New("render_chart: Chart is not implemented yet")
}

// Narration gives the bytes of the audio (audio/wav) that state done returns. It runs when the
// workflow ends there (a retry may run it again); a replayed round sends the recorded result.
// Returning no bytes, or an error, fails the round as a dependency failure (the error goes to the
// log only).
func (h *RenderChartImpl) Narration(ctx context.Context, f *RenderChartFlow) ([]byte, error) {
	// TODO: return the bytes of narration.
	return nil, errors.New("render_chart: Narration is not implemented yet")
}
