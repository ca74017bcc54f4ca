package conformanceprogress

//go:generate go run github.com/mrtrgen/mrtrgen/cmd/mrtrgen generate ../../specs/conformance_progress.mrtr.yaml

import (
	"context"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// TestToolWithProgressImpl is the conformance suite's progress fixture:
// anyone may call it; it reports 0, 50 and 100 of 100 with Pause between
// the reports.
type TestToolWithProgressImpl struct {
	// Pause is the wait between two reports (0: 50 ms, as the suite asks).
	Pause time.Duration
}

var _ TestToolWithProgressHandler = (*TestToolWithProgressImpl)(nil)

// Authorize allows every caller: the fixture touches nothing.
func (h *TestToolWithProgressImpl) Authorize(ctx context.Context, f *TestToolWithProgressFlow) error {
	return nil
}

// ReportProgress reports 0, 50 and 100 of 100, waiting Pause before the
// second and the third report, and stops when ctx is done. A failed report
// (the client went away) does not fail the call: progress is advisory.
func (h *TestToolWithProgressImpl) ReportProgress(ctx context.Context, f *TestToolWithProgressFlow, p *mrtr.Progress) error {
	pause := h.Pause
	if pause <= 0 {
		pause = 50 * time.Millisecond
	}
	for i, v := range []float64{0, 50, 100} {
		if i > 0 {
			t := time.NewTimer(pause)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		_ = p.Report(ctx, v, 100, "")
	}
	return nil
}
