package mrtr_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/mrtrtest"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// blipStore fails the first Complete of an effect record once (a blip of a
// few ms) and remembers every continuation ref written.
type blipStore struct {
	store.Store
	failed atomic.Bool
	mu     sync.Mutex
	refs   []string
}

func (b *blipStore) Complete(ctx context.Context, key, owner string, result []byte, retain time.Duration) error {
	if strings.Contains(key, "/effect/") && b.failed.CompareAndSwap(false, true) {
		return errUnreachable
	}
	return b.Store.Complete(ctx, key, owner, result, retain)
}

func (b *blipStore) PutState(ctx context.Context, rec store.StateRecord, ttl time.Duration) error {
	b.mu.Lock()
	b.refs = append(b.refs, rec.Ref)
	b.mu.Unlock()
	return b.Store.PutState(ctx, rec, ttl)
}

// When recording an effect's outcome needs a second try (the store failed
// for a moment), the workflow's continuations are deleted only after it:
// the retried write of the sensitive continuation the record points to must
// not bring it back after the workflow ended.
func TestABackgroundRecordingDoesNotOutliveTheWorkflow(t *testing.T) {
	mem := store.NewMemory(store.Options{})
	bs := &blipStore{Store: mem}
	clock := mrtrtest.NewClock()
	e, err := mrtr.NewEngine(mrtr.Config{Audience: "at-rest", Codec: mrtrtest.NewCodec(t, clock), Store: bs, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	impl := &testprog.VaultImpl{}
	h := &mrtrtest.Harness[*testprog.VaultFlow]{Program: testprog.NewVaultProgram(impl), Engine: e, Store: bs,
		Clock: clock, Principal: "alice", Capabilities: mrtrtest.AllCapabilities()}
	args := map[string]any{"vaultId": "v-1"}
	marker := "owner-of-v-1"
	ask := call(t, h, args, "", nil)
	pin := mcp.InputResponseMap{"pin": mrtrtest.Accept(map[string]any{"code": "1234", "otp": "otp-1"})}
	done := call(t, h, args, ask.RequestState, pin)
	if done.Final == nil || done.Final.Outcome != mrtr.OutcomeSuccess {
		t.Fatalf("workflow: %+v", done.Final)
	}
	time.Sleep(300 * time.Millisecond) // the background recording succeeds
	bs.mu.Lock()
	defer bs.mu.Unlock()
	for _, ref := range bs.refs {
		if rec, err := mem.GetState(context.Background(), ref); err == nil && bytes.Contains(rec.Data, []byte(marker)) {
			t.Fatalf("after the workflow ended, continuation %s of workflow %s still holds %q", ref, rec.Workflow, marker)
		}
	}
}
