package approval_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/approval"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/pgstore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/redisstore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/sqlitestore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

// The attacks that need a real store: each runs on memory, SQLite,
// PostgreSQL and Redis (the last two skip without their service, fail
// under $CI).
var backends = []struct {
	name string
	open func(t *testing.T) store.ApprovalStore
}{
	{"memory", func(t *testing.T) store.ApprovalStore { return store.NewMemory(store.Options{}) }},
	{"sqlite", func(t *testing.T) store.ApprovalStore {
		s, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"), sqlitestore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}},
	{"postgres", func(t *testing.T) store.ApprovalStore {
		prefix := storetest.UniqueName() + "_"
		s, err := pgstore.Open(context.Background(), storetest.PostgresURL(t), pgstore.Options{TablePrefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = pgstore.DropTables(context.Background(), s.Pool(), prefix)
			s.Close()
		})
		return s
	}},
	{"redis", func(t *testing.T) store.ApprovalStore {
		prefix := "mrtrtest:" + storetest.UniqueName() + ":"
		s, err := redisstore.Open(context.Background(), storetest.RedisURL(t), redisstore.Options{KeyPrefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_, _ = redisstore.DeleteKeys(context.Background(), s.Client(), prefix)
			s.Close()
		})
		return s
	}},
}

func newService(t *testing.T, st store.ApprovalStore) *approval.Service {
	t.Helper()
	ring, err := seal.EphemeralRing(func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := approval.New(approval.Config{Store: st, Codec: seal.New(ring, seal.Options{}), Audience: "payments",
		URL: "https://tools.example.com/approvals", Notifier: approval.Notifiers{}})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// gate is what the engine's approval gate does with the service
// (mrtr/approvalround.go): request, and consume a decided record, asking
// anew when another workflow took it first. It reports whether the gate
// passed.
func gate(ctx context.Context, svc *approval.Service, a approval.Action, p approval.Policy) (bool, error) {
	for range 2 {
		rec, err := svc.Request(ctx, a, p)
		if err != nil {
			return false, err
		}
		if rec.State == approval.Pending {
			return false, nil
		}
		rec, err = svc.Consume(ctx, rec.ID, a.Workflow)
		var r *approval.Refusal
		if errors.As(err, &r) && r.Code == approval.CodeConsumed {
			continue
		}
		if err != nil {
			return false, err
		}
		return rec.State == approval.Approved && rec.ConsumedBy == a.Workflow, nil
	}
	return false, errors.New("kept being taken")
}

// TestAttackOneApprovalOneEffectUnderRace: many workflows of the same
// action (same digest) race for one approval: exactly one passes the
// gate, the others are left with a new pending request, and do not pass
// later; and many rounds
// requesting a fresh action at once make one record.
func TestAttackOneApprovalOneEffectUnderRace(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			svc := newService(t, b.open(t))
			p := approval.Policy{Count: 1, Requester: approval.RequesterExcluded, Deadline: time.Hour, Revision: "r"}
			act := func(w string) approval.Action {
				return approval.Action{Tool: "send_payout", Gate: "approve", Workflow: w, Requester: "alice",
					Digest: sha256.Sum256([]byte("alice|2500|pay_acme")), Summary: "Send 2,500.00 EUR?", Approvers: []string{"bob"}}
			}
			const n = 8
			ids := make([]string, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					rec, err := svc.Request(ctx, act(fmt.Sprint("w", i)), p)
					if err != nil {
						t.Error(err)
						return
					}
					ids[i] = rec.ID
				})
			}
			wg.Wait()
			for i := range ids {
				if ids[i] != ids[0] {
					t.Fatalf("concurrent requests of one action made several records: %v", ids)
				}
			}
			if _, err := svc.Decide(ctx, approval.Decide{ID: ids[0], Approver: "bob", Approve: true, Channel: approval.ChannelAPI}); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var winners []int
			for i := range n {
				wg.Go(func() {
					ok, err := gate(ctx, svc, act(fmt.Sprint("w", i)), p)
					if err != nil {
						t.Error(err)
					}
					if ok {
						mu.Lock()
						winners = append(winners, i)
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			if len(winners) != 1 {
				t.Fatalf("one approval let workflows %v through", winners)
			}
			// Nobody else passes afterwards either (the losers asked anew).
			for i := range n {
				ok, err := gate(ctx, svc, act(fmt.Sprint("w", i)), p)
				if err != nil {
					t.Fatal(err)
				}
				if ok && i != winners[0] {
					t.Fatalf("workflow w%d passed on the approval w%d took", i, winners[0])
				}
			}
		})
	}
}

// TestAttackConcurrentDecisionsRespectCount: with count 2, two approvers
// and a decliner deciding at once, the record ends declined or approved
// with its decisions consistent with the state (never approved with a
// decline in it, never approved with fewer than two approvals).
func TestAttackConcurrentDecisionsRespectCount(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			svc := newService(t, b.open(t))
			p := approval.Policy{Count: 2, Requester: approval.RequesterExcluded, Deadline: time.Hour, Revision: "r"}
			for round := range 5 {
				a := approval.Action{Tool: "t", Gate: "g", Workflow: "w", Requester: "alice",
					Digest: sha256.Sum256(fmt.Appendf(nil, "x%d", round)), Summary: "s", Approvers: []string{"bob", "carol", "dave"}}
				rec, err := svc.Request(ctx, a, p)
				if err != nil {
					t.Fatal(err)
				}
				var wg sync.WaitGroup
				for _, who := range []string{"bob", "carol", "dave", "bob", "alice", "mallory"} {
					wg.Go(func() {
						_, _ = svc.Decide(ctx, approval.Decide{ID: rec.ID, Approver: who, Approve: who != "dave", Channel: approval.ChannelAPI})
					})
				}
				wg.Wait()
				got, err := svc.Get(ctx, rec.ID)
				if err != nil {
					t.Fatal(err)
				}
				yes, no, seen := 0, 0, map[string]bool{}
				for _, d := range got.Decisions {
					if seen[d.Approver] || d.Approver == "alice" || d.Approver == "mallory" {
						t.Fatalf("decisions %+v", got.Decisions)
					}
					seen[d.Approver] = true
					if d.Approve {
						yes++
					} else {
						no++
					}
				}
				switch {
				case got.State == approval.Approved && (no > 0 || yes < 2),
					got.State == approval.Declined && no != 1,
					got.State == approval.Pending:
					t.Fatalf("state %s with decisions %+v", got.State, got.Decisions)
				}
			}
		})
	}
}
