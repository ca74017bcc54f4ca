package mrtrtest

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"testing"

	"github.com/mrtrgen/mrtrgen/mrtr/approval"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Approvals in tests. A harness keeps the approvals of approval gates on
// its own store and clock; a test decides them as another principal, as
// the approval page would (Harness.Decide), or lets the clock pass their
// deadline.

// ApprovalsURL is where a harness's approval links point.
const ApprovalsURL = PublicURL + "/approvals"

// latestApproval remembers the approvals a harness's store inserted, so a
// test can decide the one its workflow waits for without a link.
type latestApproval struct {
	store.ApprovalStore
	mu  sync.Mutex
	ids []string
}

func (l *latestApproval) InsertApproval(ctx context.Context, row store.ApprovalRow) error {
	err := l.ApprovalStore.InsertApproval(ctx, row)
	if err == nil {
		l.mu.Lock()
		l.ids = append(l.ids, row.ID)
		l.mu.Unlock()
	}
	return err
}

func (l *latestApproval) latest() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.ids) == 0 {
		return ""
	}
	return l.ids[len(l.ids)-1]
}

func (h *Harness[F]) newApprovals(t testing.TB, codec *seal.Codec, log *slog.Logger) {
	st, ok := h.Store.(store.ApprovalStore)
	if !ok {
		return
	}
	h.approvals = &latestApproval{ApprovalStore: st}
	svc, err := approval.New(approval.Config{
		Store: h.approvals, Codec: codec, Audience: Audience, URL: ApprovalsURL,
		Notifier: approval.LogNotifier{Logger: log}, Logger: log, Now: h.Clock.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	h.Approvals = svc
}

// ErrNoApproval is Approval's error when no workflow of the harness asked
// for an approval yet.
var ErrNoApproval = errors.New("mrtrtest: no approval was requested on this harness")

// Approval returns the approval requested last on the harness.
func (h *Harness[F]) Approval(ctx context.Context) (*approval.Record, error) {
	if h.approvals == nil || h.approvals.latest() == "" {
		return nil, ErrNoApproval
	}
	return h.Approvals.Get(ctx, h.approvals.latest())
}

// Decide decides the approval requested last as approver, on the JSON
// API's channel, as the approval page would: the policy's checks apply (a
// *approval.Refusal says why one is refused).
func (h *Harness[F]) Decide(ctx context.Context, approver string, approve bool, reason string) (*approval.Record, error) {
	rec, err := h.Approval(ctx)
	if err != nil {
		return nil, err
	}
	return h.Approvals.Decide(ctx, approval.Decide{ID: rec.ID, Digest: rec.Digest, Approver: approver, Approve: approve, Reason: reason, Channel: approval.ChannelAPI})
}

// Approvers returns principals who may approve rec, other than its
// requester, enough for its policy's count: those the hook resolved, or
// made-up ones ("approver-1", …) when the policy admits anyone signed in.
func Approvers(rec *approval.Record) []string {
	var out []string
	for _, p := range rec.Approvers {
		if p != rec.Requester {
			out = append(out, p)
		}
	}
	if rec.Approvers == nil {
		for i := range max(rec.Policy.Count, 1) {
			out = append(out, "approver-"+strconv.Itoa(i+1))
		}
	}
	return out
}
