package mrtr_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// v2Token is one requestState of envelope version 2 (positional
// continuation, bound to the schema hash and to the legacy arguments
// digest), minted by the build before envelope version 3 with mrtrtest's
// fixed key (id 1) on mrtrtest's clock at testclock.Epoch. Record is the
// continuation record of a by-reference program, as that build stored it.
type v2Token struct {
	Name   string             `json:"name"`
	Token  string             `json:"token"`
	Record *store.StateRecord `json:"record,omitempty"`
}

func loadV2Tokens(t *testing.T) map[string]v2Token {
	t.Helper()
	b, err := os.ReadFile("testdata/v2tokens.json")
	if err != nil {
		t.Fatal(err)
	}
	var list []v2Token
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	m := map[string]v2Token{}
	for _, tok := range list {
		m[tok.Name] = tok
	}
	return m
}

// Tokens minted before envelope version 3 keep opening on a build of the
// same spec, sealed and by reference, and the workflow finishes.
func TestVersion2TokensOpen(t *testing.T) {
	tokens := loadV2Tokens(t)
	ctx := context.Background()
	t.Run("transfer at askMemo", func(t *testing.T) {
		h := mrtrtest.New(t, testprog.NewTransferProgram(&testprog.TransferImpl{}))
		r := call(t, h, transferArgs, tokens["transfer/askMemo"].Token, mcp.InputResponseMap{"memo": memo("rent"), "summary": mrtrtest.Text("rent")})
		if r.InputRequests["confirm"] == nil {
			t.Fatalf("a v2 token at askMemo did not take its answers: %+v", r)
		}
		final := call(t, h, transferArgs, r.RequestState, mcp.InputResponseMap{"confirm": confirm(true)})
		if final.Final == nil || final.Final.Outcome != mrtr.OutcomeSuccess {
			t.Fatalf("after a v2 token: %+v", final)
		}
	})
	t.Run("transfer at confirm", func(t *testing.T) {
		h := mrtrtest.New(t, testprog.NewTransferProgram(&testprog.TransferImpl{}))
		final := call(t, h, transferArgs, tokens["transfer/confirm"].Token, mcp.InputResponseMap{"confirm": confirm(true)})
		if final.Final == nil || final.Final.Outcome != mrtr.OutcomeSuccess || !strings.HasPrefix(final.Final.Text, "Sent 40 from acc-123") {
			t.Fatalf("a v2 token at the gate: %+v", final)
		}
	})
	t.Run("vault by reference", func(t *testing.T) {
		tok := tokens["vault/askPin"]
		h := mrtrtest.New(t, testprog.NewVaultProgram(&testprog.VaultImpl{}))
		if err := h.Store.PutState(ctx, *tok.Record, 2*time.Minute); err != nil {
			t.Fatal(err)
		}
		final := call(t, h, map[string]any{"vaultId": "v-7"}, tok.Token, mcp.InputResponseMap{"pin": mrtrtest.Accept(map[string]any{"code": "1234"})})
		if final.Final == nil || final.Final.Outcome != mrtr.OutcomeSuccess {
			t.Fatalf("a v2 by-reference token: %+v", final)
		}
	})
}
