package approval

import (
	"context"
	"testing"
	"time"
)

// The deadline bounds the use of an approval: one approved but not taken
// before it expires then.
func TestAttackApprovedRecordUsableLongAfterDeadline(t *testing.T) {
	f := newSvcFixture(t)
	ctx := context.Background()
	rec := f.request(t, action("w1", "alice", "2500"), fourEyesPolicy)
	if _, err := f.svc.Decide(ctx, Decide{ID: rec.ID, Approver: "bob", Approve: true, Channel: ChannelAPI}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(29 * 24 * time.Hour) // 28 days past the 24h deadline
	got := f.request(t, action("w2", "alice", "2500"), fourEyesPolicy)
	if got.ID == rec.ID && got.State == Approved {
		if _, err := f.svc.Consume(ctx, got.ID, "w2"); err == nil {
			t.Fatalf("an approval given at %s was consumed at %s, 28 days past its deadline %s", got.DecidedAt, f.clock.Now(), got.Deadline)
		}
	}
}
