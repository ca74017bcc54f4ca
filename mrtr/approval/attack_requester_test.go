package approval

import (
	"context"
	"testing"
	"time"
)

// approvers: finance, requester: page means "a finance member may approve
// their own request": a requester outside finance may not.
func TestAttackRequesterPageOutsideRole(t *testing.T) {
	f := newSvcFixture(t)
	a := action("w1", "intern", "2500") // Approvers: bob, carol, dave
	rec := f.request(t, a, Policy{Role: "finance", Count: 1, Requester: RequesterPage, Deadline: time.Hour})
	got, err := f.svc.Decide(context.Background(), Decide{ID: rec.ID, Approver: "intern", Approve: true, Channel: ChannelPage})
	if err == nil {
		t.Fatalf("intern, not in finance, approved their own request: %s", got.State)
	}
}
