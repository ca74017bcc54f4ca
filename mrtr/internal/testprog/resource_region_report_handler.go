package testprog

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/mrtrgen/mrtrgen/mrtr"
)

// RegionReportImpl implements RegionReportHandler for resource
// region_report: everyone but mallory may read it, and Chart counts the
// charts it drew and numbers each, so a test can tell a recorded chart
// from a new one.
type RegionReportImpl struct {
	charts atomic.Int32
}

var _ RegionReportHandler = (*RegionReportImpl)(nil)

// Authorize refuses mallory.
func (h *RegionReportImpl) Authorize(_ context.Context, f *RegionReportFlow) error {
	if f.Call.Principal == "mallory" {
		return mrtr.Forbidden("mallory may not read reports")
	}
	return nil
}

// Chart draws the region's chart (bytes that start like a PNG), with its
// number.
func (h *RegionReportImpl) Chart(_ context.Context, f *RegionReportFlow) ([]byte, error) {
	n := h.charts.Add(1)
	return fmt.Appendf([]byte("\x89PNG\r\n\x1a\n"), "%s #%d", f.Args.Region, n), nil
}

// Charts is how many charts Chart drew.
func (h *RegionReportImpl) Charts() int { return int(h.charts.Load()) }
