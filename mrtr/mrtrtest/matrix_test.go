package mrtrtest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// TestMatrixBusinessKeyRun is run by TestMatrixCatchesRepeatedBusinessEffect
// in a child process, whose failure it expects.
func TestMatrixBusinessKeyRun(t *testing.T) {
	if os.Getenv("MRTRTEST_FORGETFUL") == "" {
		t.Skip("run by TestMatrixCatchesRepeatedBusinessEffect")
	}
	h := &testprog.TransferImpl{}
	mrtrtest.RunMatrix(t, testprog.NewTransferProgram(h), mrtrtest.Fixtures{
		Args: map[string]any{"account": "acc-000", "amount": int64(1)},
		Answers: map[string]mcp.InputResponse{
			"memo":    mrtrtest.Accept(map[string]any{"note": "example", "urgent": true}),
			"summary": mrtrtest.Text("A sampled answer."),
		},
		Effects: h.SentCount,
	}, mrtrtest.WithStore(func(c *mrtrtest.Clock) store.Store {
		return mrtrtest.ForgetfulEffects{store.NewMemory(store.Options{Now: c.Now})}
	}))
}

// The matrix's "business operation id" scenario fails a program whose
// effect runs again for a second workflow with the same business key.
func TestMatrixCatchesRepeatedBusinessEffect(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run", "^TestMatrixBusinessKeyRun$/^business_operation_id$", "-test.v", "-test.timeout", "2m")
	cmd.Env = append(os.Environ(), "MRTRTEST_FORGETFUL=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the matrix passed a program that repeats a business-keyed effect:\n%s", out)
	}
	if !strings.Contains(string(out), `scenario "business operation id" at send, round 3: want a second workflow that reached effect send (operation id transfer-{account}-{amount}) to be refused there, not go on; it ended success at state done ("Sent 1 from acc-000 as tr-2.")`) {
		t.Fatalf("the matrix failed for another reason:\n%s", out)
	}
}
