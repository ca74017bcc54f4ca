// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package content_kinds

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestRegionChartHandler drives RegionChartImpl through one region_chart workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveRegionChart to start one as another caller.
func TestRegionChartHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewRegionChartProgram(&RegionChartImpl{}))
	d := DriveRegionChart(t, h, RegionChartArgs{Region: "example"})
	d.WantAsks("size")
	d.Answer(RegionChartSizeAnswer{Pixels: RegionChartPixelsSmall})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestRegionChartHandlerMatrix runs the MRTR test matrix against RegionChartImpl.
// Fixtures.Variants cover the branches the fixture workflow does not take;
// Fixtures.Scenarios a scenario that needs other callers or arguments.
func TestRegionChartHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &RegionChartImpl{}
	mrtrtest.RunMatrix(t, NewRegionChartProgram(h), mrtrtest.Fixtures{
		Answers:      mrtrtest.Answers(RegionChartSizeAnswer{Pixels: RegionChartPixelsSmall}),
		Args:         map[string]any{"region": "example"},
		Invalid:      map[string]mcp.InputResponse{"size": mrtrtest.Accept(map[string]any{"pixels": 12345})},
		Other:        "bob",
		OtherArgs:    map[string]any{"region": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
