// Written by mrtrgen as a starting point. This file is yours: edit it freely;
// mrtrgen never overwrites it (delete it to get a fresh scaffold).

package deploy

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	vocab "github.com/mrtrgen/mrtrgen/vocab"
)

// TestDeployServiceHandler drives DeployServiceImpl through one deploy_service workflow as a client
// would: typed arguments, each question answered with its typed answer, what it asks and how it
// ends checked. Test its other branches the same way: d.Decline, d.Cancel, d.Refuse, d.As another
// caller for the next rounds, d.Replay a round. The workflow starts as h.Principal ("alice" unless
// you set it): set h.Principal before DriveDeployService to start one as another caller.
func TestDeployServiceHandler(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := mrtrtest.New(t, NewDeployServiceProgram(&DeployServiceImpl{}))
	d := DriveDeployService(t, h, DeployServiceArgs{Service: "a"})
	d.WantAsks("changelog", "checkout", "target")
	d.Answer(
		mrtrtest.Respond("changelog", mrtrtest.Text("A sampled answer.")),
		mrtrtest.Respond("checkout", mrtrtest.RootsOf("file:///workspace/1")),
		DeployServiceTargetAnswer{
			Canary:  true,
			Version: "example",
		},
	)
	d.WantAsks("confirm")
	d.Confirm()
	d.WantEnd(vocab.OutcomeSuccess, "")
}

// TestDeployServiceHandlerMatrix runs the MRTR test matrix against DeployServiceImpl.
// Give the fixtures Effects (a count of the side effects your handler performed) and
// Break (it makes your handler's dependencies fail until restored); Fixtures.Variants
// for the branches the fixture workflow does not take; Fixtures.Scenarios for a
// scenario that needs other callers or arguments.
func TestDeployServiceHandlerMatrix(t *testing.T) {
	t.Skip("scaffold: give it arguments and answers your handler knows, then delete this line")
	h := &DeployServiceImpl{}
	mrtrtest.RunMatrix(t, NewDeployServiceProgram(h), mrtrtest.Fixtures{
		Answers: mrtrtest.Answers(
			mrtrtest.Respond("changelog", mrtrtest.Text("A sampled answer.")),
			mrtrtest.Respond("checkout", mrtrtest.RootsOf("file:///workspace/1")),
			DeployServiceTargetAnswer{
				Canary:  true,
				Version: "example",
			},
		),
		Args: map[string]any{"service": "a"},
		Invalid: map[string]mcp.InputResponse{
			"changelog": mrtrtest.Text(strings.Repeat("x", 1001)),
			"checkout":  mrtrtest.RootsOf("file:///workspace/1", "file:///workspace/2"),
			"target":    mrtrtest.Accept(map[string]any{"version": 12345}),
		},
		Other:        "bob",
		OtherArgs:    map[string]any{"service": "zz"},
		Unauthorized: "mallory",
		WantOutcome:  vocab.OutcomeSuccess,
	})
}
