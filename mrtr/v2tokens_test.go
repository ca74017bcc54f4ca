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

func loadV2Tokens(t testing.TB) map[string]v2Token {
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

// countingProgram counts the calls of the legacy arguments encoding.
type countingProgram struct {
	mrtr.Program[*testprog.TransferFlow]
	legacy *int
}

func (p countingProgram) AppendArgsV2(b []byte, f *testprog.TransferFlow) []byte {
	*p.legacy++
	return p.Program.AppendArgsV2(b, f)
}

// The legacy binding costs only tokens that need it: a round resumed from
// a version 3 token never computes the legacy arguments digest, one from a
// version 2 token computes it once.
func TestLegacyBindingOnlyForLegacyTokens(t *testing.T) {
	var legacy int
	h := mrtrtest.New(t, countingProgram{Program: testprog.NewTransferProgram(&testprog.TransferImpl{}), legacy: &legacy})
	r1 := call(t, h, transferArgs, "", nil)
	call(t, h, transferArgs, r1.RequestState, mcp.InputResponseMap{"memo": memo("rent"), "summary": mrtrtest.Text("rent")})
	if legacy != 0 {
		t.Fatalf("a first round and a v3 round computed the legacy digest %d times", legacy)
	}
	call(t, h, transferArgs, loadV2Tokens(t)["transfer/askMemo"].Token, mcp.InputResponseMap{"memo": memo("rent"), "summary": mrtrtest.Text("rent")})
	if legacy != 1 {
		t.Fatalf("a v2 round computed the legacy digest %d times, want once", legacy)
	}
}

// BenchmarkResume is a resumed round of transfer from a version 3 token
// (the common path) and from a version 2 token (which opens a second time,
// under the legacy binding).
func BenchmarkResume(b *testing.B) {
	clock := mrtrtest.NewClock()
	e, err := mrtr.NewEngine(mrtr.Config{Audience: mrtrtest.Audience, Codec: mrtrtest.NewCodec(b, clock), Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	p := testprog.NewTransferProgram(&testprog.TransferImpl{})
	args := json.RawMessage(`{"account":"acc-123","amount":40}`)
	ctx := context.Background()
	first, err := mrtr.Run(ctx, e, p, mrtr.Request{Arguments: args, Capabilities: mrtrtest.AllCapabilities(), Principal: "alice"})
	if err != nil {
		b.Fatal(err)
	}
	answers := mcp.InputResponseMap{"memo": memo("rent"), "summary": mrtrtest.Text("rent")}
	for _, c := range []struct{ name, token string }{{"v3", first.RequestState}, {"v2", loadV2Tokens(b)["transfer/askMemo"].Token}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				r, err := mrtr.Run(ctx, e, p, mrtr.Request{Arguments: args, RequestState: c.token, InputResponses: answers,
					Capabilities: mrtrtest.AllCapabilities(), Principal: "alice"})
				if err != nil || r.InputRequests["confirm"] == nil {
					b.Fatalf("%+v, %v", r, err)
				}
			}
		})
	}
}
