// Hand-written tests of the generated code of this case, run next to it
// by TestGoldenCompile: a client that cannot answer input requests gives
// every answer up front and the workflow ends in one round; answers given
// up front are validated like interactive ones.
package deploy

import (
	"context"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
)

func TestUpfrontInputs(t *testing.T) {
	h := &fakeDeployService{}
	hs := mrtrtest.New(t, NewDeployServiceProgram(h))
	args := map[string]any{
		"service": "api",
		"inputs": map[string]any{
			"target":    map[string]any{"version": "1.2.3"},
			"changelog": "Fixed bugs.",
			"checkout":  []string{"file:///src"},
			"confirm":   true,
		},
	}
	reply, err := hs.Call(context.Background(), args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeSuccess || reply.Final.Text != "Deployed api 1.2.3: Fixed bugs." {
		t.Fatalf("one round with every answer: %+v %+v", reply, reply.Final)
	}
	if h.fake.Effects() != 1 {
		t.Errorf("%d effects", h.fake.Effects())
	}

	// An invalid answer given up front is asked for again, saying why.
	args["inputs"].(map[string]any)["target"] = map[string]any{"version": strings.Repeat("9", 21)}
	reply, err = mrtrtest.New(t, NewDeployServiceProgram(&fakeDeployService{})).Call(context.Background(), args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reply.NeedsInput() || reply.InputRequests["target"] == nil {
		t.Fatalf("invalid up-front answer: %+v", reply)
	}
	// Declining up front ends the workflow without deploying.
	args["inputs"].(map[string]any)["target"] = map[string]any{"version": "1.2.3"}
	args["inputs"].(map[string]any)["confirm"] = false
	h = &fakeDeployService{}
	reply, err = mrtrtest.New(t, NewDeployServiceProgram(h)).Call(context.Background(), args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if reply.NeedsInput() || reply.Final.Outcome != mrtr.OutcomeCancelled || h.fake.Effects() != 0 {
		t.Fatalf("declined up front: %+v, %d effects", reply.Final, h.fake.Effects())
	}
}
