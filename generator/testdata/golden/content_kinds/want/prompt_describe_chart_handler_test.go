// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package content_kinds

import (
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestDescribeChartHandler drives DescribeChartImpl through one describe_chart workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveDescribeChart to start one as another caller.
func TestDescribeChartHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewDescribeChartProgram(&DescribeChartImpl{}))
	d := DriveDescribeChart(t, h, DescribeChartArgs{
		Region: "example",
		Tone:   "plain",
	})
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestDescribeChartHandlerMatrix runs the MRTR test matrix against DescribeChartImpl.
// Fixtures.Variants cover the branches the fixture workflow does not take;
// Fixtures.Scenarios a scenario that needs other callers or arguments.
func TestDescribeChartHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &DescribeChartImpl{}
	mrtrtest.RunMatrix(t, NewDescribeChartProgram(h), mrtrtest.Fixtures{
		Args:         map[string]any{"region": "example"},
		Other:        "bob",
		OtherArgs:    map[string]any{"region": "another"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
