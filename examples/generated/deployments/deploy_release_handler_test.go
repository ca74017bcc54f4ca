package deployments

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domaintest"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

func release(service, version string) DeployReleaseArgs {
	return DeployReleaseArgs{Service: service, Version: version}
}

// TestDeployReleaseRealMatrix runs the MRTR matrix against the real
// handler on fraud-model v3.2.0, which only its deployers alice and bob may
// deploy (in its rounds: the harness is a client without the tasks
// extension, so the optional task mode runs it as an ordinary workflow).
func TestDeployReleaseRealMatrix(t *testing.T) {
	data := domaintest.New(t)
	mrtrtest.RunMatrix(t, NewDeployReleaseProgram(&DeployReleaseImpl{Data: data}), mrtrtest.Fixtures{
		Args:         release("fraud-model", "v3.2.0"),
		Principal:    "alice",
		Other:        "bob",
		Unauthorized: "mallory",
		OtherArgs:    release("fraud-model", "v3.3.0"),
		Effects:      data.Effects(deployTool, "canary:fraud-model"),
		Answers:      mrtrtest.Answers(DeployReleasePromotionAnswer{Action: DeployReleaseActionPromote}),
		Invalid:      map[string]mcp.InputResponse{"promotion": mrtrtest.Accept(map[string]any{"action": "sideways"})},
		Break:        data.BreakWrites,
		Variants: []mrtrtest.Variant{{
			Name:        "rolled back",
			Answers:     mrtrtest.Answers(DeployReleasePromotionAnswer{Action: DeployReleaseActionRollback}),
			WantOutcome: mrtr.OutcomeCancelled,
		}},
	}, data.Harness(t))
}

// Choosing a rollback rolls the canary back; production keeps its
// version.
func TestDeployReleaseRollsBack(t *testing.T) {
	ctx := context.Background()
	data := domaintest.New(t)
	h := mrtrtest.New(t, NewDeployReleaseProgram(&DeployReleaseImpl{Data: data}))
	DriveDeployRelease(t, h, release("docs-site", "v2.1.0")).
		WantQuestion("start", "Deploy docs-site v2.1.0 (now v2.0.0) to a canary").
		Confirm().
		WantQuestion("promotion", "The canary of docs-site v2.1.0 is healthy").
		Answer(DeployReleasePromotionAnswer{Action: DeployReleaseActionRollback}).
		WantEnd(mrtr.OutcomeCancelled, "Rolled the canary of docs-site v2.1.0 back; production still runs v2.0.0.")
	c, _, err := domain.Load[domain.Component](ctx, data, domain.ComponentKey("docs-site"))
	if err != nil || c.Version != "v2.0.0" || c.Rollout != "" {
		t.Fatalf("component %+v, %v", c, err)
	}
	for what, want := range map[string]int64{"canary": 1, "rollback": 1, "promote": 0} {
		if n, _ := domain.Effects(ctx, data, deployTool, what+":docs-site"); n != want {
			t.Errorf("%s ran %d times, want %d", what, n, want)
		}
	}
}
