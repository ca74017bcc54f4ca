package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// queueBehindHeldConnection opens a file store and holds its write
// connection (an effect transaction), so that the writes started by
// start queue behind it; then it lets them through together and waits for
// them. It returns the store and how many groups were committed.
func queueBehindHeldConnection(t *testing.T, start func(s *Store, wg *sync.WaitGroup)) (*Store, int64) {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "group.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	held, err := s.BeginEffectTx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	start(s, &wg)
	time.Sleep(200 * time.Millisecond) // let every writer queue
	if err := held.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	return s, s.groupsCommitted.Load()
}

// TestGroupCommitEachWriterItsOwnOutcome: writers queued together share a
// commit, and each gets its own outcome: a Complete that lost its lease
// fails alone, two claims of one key see each other (one acquires, the
// other finds it in flight), the rest succeed.
func TestGroupCommitEachWriterItsOwnOutcome(t *testing.T) {
	ctx := context.Background()
	const n = 12
	claims := make([]store.ClaimResult, n)
	claimErrs := make([]error, n)
	var sameKey [2]store.ClaimResult
	var lostErr error
	s, groups := queueBehindHeldConnection(t, func(s *Store, wg *sync.WaitGroup) {
		for i := range n {
			wg.Go(func() {
				claims[i], claimErrs[i] = s.Claim(ctx, store.ClaimRequest{Key: fmt.Sprintf("k%d", i),
					Fingerprint: []byte("fp"), Owner: "a", Lease: time.Minute})
			})
		}
		for i := range sameKey {
			wg.Go(func() {
				var err error
				sameKey[i], err = s.Claim(ctx, store.ClaimRequest{Key: "same", Fingerprint: []byte("fp"),
					Owner: fmt.Sprintf("owner%d", i), Lease: time.Minute})
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Go(func() { lostErr = s.Complete(ctx, "never-claimed", "a", []byte("r"), time.Hour) })
	})
	for i := range n {
		if claimErrs[i] != nil || claims[i].Status != store.Acquired {
			t.Errorf("claim %d = %+v, %v; want acquired", i, claims[i], claimErrs[i])
		}
	}
	if got := []store.ClaimStatus{sameKey[0].Status, sameKey[1].Status}; !(got[0] == store.Acquired && got[1] == store.InFlight) &&
		!(got[0] == store.InFlight && got[1] == store.Acquired) {
		t.Errorf("two claims of one key = %v, want one acquired and one in flight", got)
	}
	if !errors.Is(lostErr, store.ErrLeaseLost) {
		t.Errorf("Complete of a key never claimed = %v, want ErrLeaseLost", lostErr)
	}
	// The first writer may commit alone (it is taken before the others
	// queue); all the others share one commit.
	if groups > 2 {
		t.Errorf("%d writers queued together were committed in %d groups, want at most 2", n+3, groups)
	}
	t.Logf("%d writers, %d commits", n+3, groups)
	for i := range n {
		if r, err := s.Claim(ctx, store.ClaimRequest{Key: fmt.Sprintf("k%d", i), Fingerprint: []byte("fp"),
			Owner: "b", Lease: time.Minute}); err != nil || r.Status != store.InFlight {
			t.Errorf("claim %d again by another owner = %+v, %v; want in flight (the first claim committed)", i, r, err)
		}
	}
}

// TestGroupCommitFailedWriteLeavesNothing: a write that fails after it
// wrote is rolled back to its savepoint; the writes of its group before
// and after it are committed.
func TestGroupCommitFailedWriteLeavesNothing(t *testing.T) {
	ctx := context.Background()
	errBoom := errors.New("boom")
	put := func(s *Store, ref string, fail bool) error {
		return s.inWriteTx(ctx, "test", func(ctx context.Context, tx *sql.Tx) error {
			_, err := tx.StmtContext(ctx, s.st.putState).ExecContext(ctx, ref, "wf", "subj", "p", []byte("d"),
				s.now()+int64(time.Hour))
			if err == nil && fail {
				err = errBoom
			}
			return err
		})
	}
	errs := make(map[string]error)
	var mu sync.Mutex
	s, groups := queueBehindHeldConnection(t, func(s *Store, wg *sync.WaitGroup) {
		for i := range 8 {
			ref := fmt.Sprintf("ref-%d", i)
			wg.Go(func() {
				err := put(s, ref, i%3 == 1)
				mu.Lock()
				errs[ref] = err
				mu.Unlock()
			})
		}
	})
	if groups > 2 {
		t.Errorf("8 queued writers were committed in %d groups, want at most 2", groups)
	}
	for i := range 8 {
		ref := fmt.Sprintf("ref-%d", i)
		_, getErr := s.GetState(ctx, ref)
		if i%3 == 1 {
			if !errors.Is(errs[ref], errBoom) || !errors.Is(getErr, store.ErrNotFound) {
				t.Errorf("%s: failing write = %v, read after = %v; want boom and not found", ref, errs[ref], getErr)
			}
		} else if errs[ref] != nil || getErr != nil {
			t.Errorf("%s: write = %v, read after = %v; want both to succeed", ref, errs[ref], getErr)
		}
	}
}

// TestGroupCommitCallerGivesUpWhileQueued: a write whose context ends
// while it waits in the queue is never run.
func TestGroupCommitCallerGivesUpWhileQueued(t *testing.T) {
	ctx := context.Background()
	var err error
	s, _ := queueBehindHeldConnection(t, func(s *Store, wg *sync.WaitGroup) {
		// Taken by the writer first, blocked on the held connection.
		wg.Go(func() {
			if err := s.PutState(ctx, store.StateRecord{Ref: "first", Workflow: "wf", Subject: "s", Principal: "p"}, time.Hour); err != nil {
				t.Error(err)
			}
		})
		time.Sleep(50 * time.Millisecond)
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer cancel()
			err = s.PutState(cctx, store.StateRecord{Ref: "gave-up", Workflow: "wf", Subject: "s", Principal: "p"}, time.Hour)
		})
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("PutState that timed out in the queue = %v, want DeadlineExceeded", err)
	}
	if _, err := s.GetState(ctx, "gave-up"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the write given up while queued was run: GetState = %v", err)
	}
}

// TestGroupCommitAfterClose: a write to a closed store fails.
func TestGroupCommitAfterClose(t *testing.T) {
	s, err := Open(context.Background(), MemoryPath, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := s.Release(context.Background(), "k", "a"); !errors.Is(err, errClosed) {
		t.Fatalf("Release after Close = %v, want %v", err, errClosed)
	}
}
