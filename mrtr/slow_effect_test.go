package mrtr_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/testprog"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// slowNotify: the downstream call is made (the note is delivered at once),
// then the effect waits for the downstream's answer, honouring ctx as any
// HTTP client does.
type slowNotify struct {
	mu       sync.Mutex
	attempts []mrtr.Attempt
	wait     time.Duration
}

func (h *slowNotify) Authorize(context.Context, *testprog.NotifyFlow) error { return nil }
func (h *slowNotify) SendNote(ctx context.Context, f *testprog.NotifyFlow) error {
	h.mu.Lock()
	h.attempts = append(h.attempts, *f.Call.Attempt)
	h.mu.Unlock()
	select {
	case <-time.After(h.wait):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// An effect slower than the lease keeps its claim (renewed while it runs)
// and is not cut off at the lease by the engine: cut off, its error would
// release the claim and a retry would run it again, Takeover unset, though
// the downstream call had happened.
func TestASlowEffectIsNotCutAtTheLease(t *testing.T) {
	const lease = 200 * time.Millisecond
	impl := &slowNotify{wait: 2 * lease}
	fs := newFaultyStore(store.NewMemory(store.Options{}))
	h := faultHarness(t, testprog.NewNotifyProgram(impl), fs, lease)
	args := map[string]any{"to": "bob"}
	ask := call(t, h, args, "", nil)
	answers := txAnswers()
	first := call(t, h, args, ask.RequestState, answers)
	t.Logf("first: %+v", first.Final)
	impl.wait = 0
	second := call(t, h, args, ask.RequestState, answers)
	t.Logf("retry: %+v", second.Final)
	if len(impl.attempts) > 1 && !impl.attempts[1].Takeover {
		t.Fatalf("attempts %+v: the effect ran again without Takeover", impl.attempts)
	}
}
