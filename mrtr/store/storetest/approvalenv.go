package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// The harness of the approval cases (approvals.go): a store under test
// with its approval side, and the calls the cases make on it, each
// failing the test with what it got and wanted.

type aenv struct {
	*env
	a store.ApprovalStore
}

// at is Epoch plus d.
func at(d time.Duration) time.Time { return Epoch.Add(d) }

// insert inserts row and returns it as stored (Version 1).
func (e *aenv) insert(row store.ApprovalRow) store.ApprovalRow {
	e.Helper()
	if err := e.a.InsertApproval(e.ctx, row); err != nil {
		e.Fatalf("InsertApproval(id %q, digest %q): %v", row.ID, row.Digest, err)
	}
	row.Version = 1
	return row
}

func (e *aenv) wantInsertErr(row store.ApprovalRow, want error) {
	e.Helper()
	if err := e.a.InsertApproval(e.ctx, row); !errors.Is(err, want) {
		e.Fatalf("InsertApproval(id %q, digest %q) = %v, want %v", row.ID, row.Digest, err, want)
	}
}

func (e *aenv) load(id string) store.ApprovalRow {
	e.Helper()
	row, err := e.a.LoadApproval(e.ctx, id)
	if err != nil {
		e.Fatalf("LoadApproval(%q) at %v: %v", id, e.clock.Now().Sub(Epoch), err)
	}
	return row
}

func (e *aenv) wantLoad(want store.ApprovalRow) {
	e.Helper()
	sameRow(e.env, "LoadApproval", e.load(want.ID), want)
}

func (e *aenv) wantLatest(digest string, want store.ApprovalRow) {
	e.Helper()
	got, err := e.a.LatestApproval(e.ctx, digest)
	if err != nil {
		e.Fatalf("LatestApproval(%q): %v", digest, err)
	}
	sameRow(e.env, "LatestApproval", got, want)
}

func (e *aenv) wantNoLoad(id string) {
	e.Helper()
	if got, err := e.a.LoadApproval(e.ctx, id); !errors.Is(err, store.ErrNotFound) {
		e.Fatalf("LoadApproval(%q) at %v = (%s, %v), want ErrNotFound", id, e.clock.Now().Sub(Epoch), showRow(got), err)
	}
}

func (e *aenv) wantNoLatest(digest string) {
	e.Helper()
	if got, err := e.a.LatestApproval(e.ctx, digest); !errors.Is(err, store.ErrNotFound) {
		e.Fatalf("LatestApproval(%q) at %v = (%s, %v), want ErrNotFound", digest, e.clock.Now().Sub(Epoch), showRow(got), err)
	}
}

func (e *aenv) replace(row store.ApprovalRow) int64 {
	e.Helper()
	v, err := e.a.ReplaceApproval(e.ctx, row)
	if err != nil {
		e.Fatalf("ReplaceApproval(id %q, version %d): %v", row.ID, row.Version, err)
	}
	if v != row.Version+1 {
		e.Fatalf("ReplaceApproval(id %q, version %d) = version %d, want %d", row.ID, row.Version, v, row.Version+1)
	}
	return v
}

func (e *aenv) wantReplaceErr(row store.ApprovalRow, want error) {
	e.Helper()
	if v, err := e.a.ReplaceApproval(e.ctx, row); !errors.Is(err, want) {
		e.Fatalf("ReplaceApproval(id %q, version %d) = (%d, %v), want %v", row.ID, row.Version, v, err, want)
	}
}

func (e *aenv) wantDue(now time.Time, limit int, want ...string) {
	e.Helper()
	got, err := e.a.DueApprovals(e.ctx, now, limit)
	if err != nil {
		e.Fatalf("DueApprovals(%v, %d): %v", now.Sub(Epoch), limit, err)
	}
	if len(got) != len(want) || (len(want) > 0 && !slices.Equal(got, want)) {
		e.Fatalf("DueApprovals(%v, %d) at %v = %q, want %q", now.Sub(Epoch), limit, e.clock.Now().Sub(Epoch), got, want)
	}
}

// sameRow fails unless got is want: every field, times by Equal, data by
// bytes (nil and empty are the same).
func sameRow(e *env, what string, got, want store.ApprovalRow) {
	e.Helper()
	if got.ID != want.ID || got.Digest != want.Digest || got.Open != want.Open ||
		!got.Due.Equal(want.Due) || !got.KeepUntil.Equal(want.KeepUntil) ||
		got.Version != want.Version || !bytes.Equal(got.Data, want.Data) {
		e.Fatalf("%s = %s, want %s", what, showRow(got), showRow(want))
	}
}

func showRow(r store.ApprovalRow) string {
	rel := func(t time.Time) string {
		if t.IsZero() {
			return "0"
		}
		return "+" + t.Sub(Epoch).String()
	}
	return fmt.Sprintf("{id %q digest %q open %v due %s keep %s v%d data %d bytes %q}",
		r.ID, r.Digest, r.Open, rel(r.Due), rel(r.KeepUntil), r.Version, len(r.Data), trunc(r.Data))
}

func newRow(id, digest string) store.ApprovalRow {
	return store.ApprovalRow{ID: id, Digest: digest, Open: true, Due: at(24 * time.Hour),
		KeepUntil: at(30 * 24 * time.Hour), Data: []byte("record " + id)}
}

// oneWinner returns the one racer of a round whose call succeeded (did
// what did says); every other racer must have lost with lost (named
// lostName).
func (e *aenv) oneWinner(round int, errs []error, lost error, lostName, did string) int {
	e.Helper()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			e.Fatalf("round %d: racers %d and %d both %s", round, winner, i, did)
		case err == nil:
			winner = i
		case !errors.Is(err, lost):
			e.Fatalf("round %d: racer %d: %v, want nil or %s", round, i, err, lostName)
		}
	}
	if winner < 0 {
		e.Fatalf("round %d: no racer %s", round, did)
	}
	return winner
}
