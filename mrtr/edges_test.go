package mrtr_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/stepkind"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrimpl"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/vocab"
)

// wrongEdge moves turn → stopped along next, where the table has only the
// check's outcome edge (outcome:stop): a Step that says why it moves must
// say it as the spec does.
type wrongEdge struct {
	mrtr.Program[*testprog.SpinFlow]
}

func (p wrongEdge) Step(ctx context.Context, r mrtrimpl.Round, f *testprog.SpinFlow) (mrtrimpl.Step, error) {
	st, err := p.Program.Step(ctx, r, f)
	if st.Kind == stepkind.Goto {
		st.Next, st.On = uint16(testprog.SpinStateStopped), vocab.Next
	}
	return st, err
}

type stopImpl struct{ testprog.SpinImpl }

func (stopImpl) TurnWheel(context.Context, *testprog.SpinFlow) (testprog.SpinTurnWheelOutcome, error) {
	return testprog.SpinTurnWheelStop, nil
}

func TestStepAlongAnEdgeTheTableLacksIsRefused(t *testing.T) {
	h := mrtrtest.New(t, mrtr.Program[*testprog.SpinFlow](wrongEdge{testprog.NewSpinProgram(&stopImpl{})}))
	_, err := h.Call(context.Background(), nil, "", nil)
	if err == nil {
		t.Fatal("a Goto along an edge the table does not have was taken")
	}
	if want := "transition turn -(next)-> stopped is not in the table"; !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not say %q", err, want)
	}
	// The same move along the table's edge is taken.
	h2 := mrtrtest.New(t, testprog.NewSpinProgram(&stopImpl{}))
	if _, err := h2.Call(context.Background(), nil, "", nil); err != nil {
		t.Fatalf("the table's own edge was refused: %v", err)
	}
}
