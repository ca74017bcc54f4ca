package store

import (
	"context"
	"slices"
	"strings"
	"time"
)

// memApprovals holds Memory's approval rows, under Memory's mutex.
type memApprovals struct {
	rows     map[string]ApprovalRow // by id
	byDigest map[string]string      // digest → latest id
}

var _ ApprovalStore = (*Memory)(nil)

func (a *memApprovals) live(id string, now time.Time) (ApprovalRow, bool) {
	row, ok := a.rows[id]
	if !ok || (!row.KeepUntil.IsZero() && !now.Before(row.KeepUntil)) {
		return ApprovalRow{}, false
	}
	return row, true
}

func (a *memApprovals) sweep(now time.Time) int {
	n := 0
	for id, row := range a.rows {
		if !row.KeepUntil.IsZero() && !now.Before(row.KeepUntil) {
			delete(a.rows, id)
			if a.byDigest[row.Digest] == id {
				delete(a.byDigest, row.Digest)
			}
			n++
		}
	}
	return n
}

// InsertApproval implements [ApprovalStore.InsertApproval].
func (m *Memory) InsertApproval(ctx context.Context, row ApprovalRow) error {
	if err := m.lock(ctx); err != nil {
		return err
	}
	defer m.mu.Unlock()
	a, now := &m.approvals, m.opts.Now()
	if a.rows == nil {
		a.rows, a.byDigest = map[string]ApprovalRow{}, map[string]string{}
	}
	if _, taken := a.rows[row.ID]; taken {
		return ErrExists
	}
	if latest, ok := a.live(a.byDigest[row.Digest], now); ok && latest.Open {
		return ErrExists
	}
	row.Version = 1
	row.Data = clone(row.Data)
	a.rows[row.ID] = row
	a.byDigest[row.Digest] = row.ID
	return nil
}

// LoadApproval implements [ApprovalStore.LoadApproval].
func (m *Memory) LoadApproval(ctx context.Context, id string) (ApprovalRow, error) {
	return m.readApproval(ctx, func() string { return id })
}

// LatestApproval implements [ApprovalStore.LatestApproval].
func (m *Memory) LatestApproval(ctx context.Context, digest string) (ApprovalRow, error) {
	return m.readApproval(ctx, func() string { return m.approvals.byDigest[digest] })
}

// readApproval returns a copy of the live row whose id idOf names, looked
// up under the lock.
func (m *Memory) readApproval(ctx context.Context, idOf func() string) (ApprovalRow, error) {
	if err := m.lock(ctx); err != nil {
		return ApprovalRow{}, err
	}
	defer m.mu.Unlock()
	row, ok := m.approvals.live(idOf(), m.opts.Now())
	if !ok {
		return ApprovalRow{}, ErrNotFound
	}
	row.Data = clone(row.Data)
	return row, nil
}

// ReplaceApproval implements [ApprovalStore.ReplaceApproval].
func (m *Memory) ReplaceApproval(ctx context.Context, row ApprovalRow) (int64, error) {
	if err := m.lock(ctx); err != nil {
		return 0, err
	}
	defer m.mu.Unlock()
	old, ok := m.approvals.live(row.ID, m.opts.Now())
	switch {
	case !ok:
		return 0, ErrNotFound
	case old.Version != row.Version:
		return 0, ErrConflict
	}
	row.Digest = old.Digest
	row.Version++
	row.Data = clone(row.Data)
	m.approvals.rows[row.ID] = row
	return row.Version, nil
}

// DueApprovals implements [ApprovalStore.DueApprovals].
func (m *Memory) DueApprovals(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if err := m.lock(ctx); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	var due []ApprovalRow
	for id := range m.approvals.rows {
		row, ok := m.approvals.live(id, m.opts.Now())
		if ok && !row.Due.IsZero() && !row.Due.After(now) {
			due = append(due, row)
		}
	}
	slices.SortFunc(due, func(a, b ApprovalRow) int {
		if c := a.Due.Compare(b.Due); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	ids := make([]string, 0, min(limit, len(due)))
	for _, row := range due[:min(limit, len(due))] {
		ids = append(ids, row.ID)
	}
	return ids, nil
}
