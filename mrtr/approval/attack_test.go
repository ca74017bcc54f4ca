package approval

import (
	"context"
	"testing"
)

// A role the Approvers hook resolved to nobody admits nobody: the record
// must keep that through the store (its JSON), not turn it into "anyone".
func TestAttackEmptyRoleAdmitsNobodyAfterStore(t *testing.T) {
	f := newSvcFixture(t)
	a := action("w1", "alice", "5000 EUR to mallory")
	a.Approvers = nil
	a.Resolve = func(context.Context) ([]string, []string, error) { return []string{}, []string{}, nil }
	rec := f.request(t, a, fourEyesPolicy)
	_, err := f.svc.Decide(context.Background(), Decide{ID: rec.ID, Digest: rec.Digest, Approver: "mallory", Approve: true, Channel: ChannelPage})
	if code(err) != CodeNotApprover {
		got, _ := f.svc.Get(context.Background(), rec.ID)
		t.Fatalf("mallory approved a request whose role resolved to nobody: err %v, state %s", err, got.State)
	}
}
