package storetest

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// RunApprovals runs the conformance suite of store.ApprovalStore against
// the stores newStore returns, which must implement it (the case fails
// otherwise). Each case gets a fresh store and clock; cases run in
// parallel. The memory store (store.Memory) is the reference semantics.
//
// Times in the cases are whole seconds after Epoch: PostgreSQL keeps
// microseconds and Redis milliseconds, and neither is what is tested here.
func RunApprovals(t *testing.T, newStore NewStoreFunc) {
	for _, tc := range approvalCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, newStore)
			as, ok := e.s.(store.ApprovalStore)
			if !ok {
				t.Fatalf("%T does not implement store.ApprovalStore", e.s)
			}
			tc.run(&aenv{env: e, a: as})
		})
	}
}

var approvalCases = []struct {
	name string
	run  func(e *aenv)
}{
	{"InsertLoadLatest", testApprovalInsertLoadLatest},
	{"OpenDigestExists", testApprovalOpenDigestExists},
	{"InsertAfterClosed", testApprovalInsertAfterClosed},
	{"IDCollision", testApprovalIDCollision},
	{"ReplaceCompareAndSwap", testApprovalReplaceCAS},
	{"ReplaceRaceOneWins", testApprovalReplaceRace},
	{"InsertRaceOneWins", testApprovalInsertRace},
	{"NotFound", testApprovalNotFound},
	{"KeepUntilExpiryAndSweep", testApprovalExpiry},
	{"DueOrderLimit", testApprovalDue},
	{"DataByteExact", testApprovalData},
	{"ContextCanceled", testApprovalCanceled},
}

func testApprovalInsertLoadLatest(e *aenv) {
	r := newRow("a1", "d1")
	r.Version = 7 // ignored: an insert is version 1
	r = e.insert(r)
	e.wantLoad(r)
	e.wantLatest("d1", r)
	e.wantNoLatest("d2")

	// Zero Due and KeepUntil round-trip as zero.
	z := store.ApprovalRow{ID: "a2", Digest: "d2", Open: true, Data: []byte("z")}
	z = e.insert(z)
	e.wantLoad(z)
	e.wantLatest("d2", z)
	e.wantLatest("d1", r)
}

func testApprovalOpenDigestExists(e *aenv) {
	r := e.insert(newRow("a1", "d1"))
	e.wantInsertErr(newRow("a2", "d1"), store.ErrExists)
	// A closed insert is refused too: the digest's open record keeps it.
	closed := newRow("a3", "d1")
	closed.Open = false
	e.wantInsertErr(closed, store.ErrExists)
	e.wantNoLoad("a2")
	e.wantNoLoad("a3")
	e.wantLatest("d1", r)
	// Replacing it (still open) keeps the digest taken.
	r.Data = []byte("decided")
	r.Version = e.replace(r)
	e.wantInsertErr(newRow("a4", "d1"), store.ErrExists)
	e.wantLatest("d1", r)
}

func testApprovalInsertAfterClosed(e *aenv) {
	r1 := e.insert(newRow("a1", "d1"))
	r1.Open = false
	r1.Due = time.Time{}
	r1.Version = e.replace(r1)

	r2 := e.insert(newRow("a2", "d1"))
	e.wantLatest("d1", r2)
	e.wantLoad(r1) // the closed record stays readable by id
	e.wantInsertErr(newRow("a3", "d1"), store.ErrExists)

	// Latest follows the newest insert, also one inserted closed.
	r2.Open = false
	r2.Version = e.replace(r2)
	r3 := newRow("a3", "d1")
	r3.Open = false // inserted closed: the digest is free for the next
	r3 = e.insert(r3)
	e.wantLatest("d1", r3)
	r4 := e.insert(newRow("a4", "d1"))
	e.wantLatest("d1", r4)
	e.wantLoad(r2)
	e.wantLoad(r3)
}

func testApprovalIDCollision(e *aenv) {
	r := e.insert(newRow("a1", "d1"))
	e.wantInsertErr(newRow("a1", "d2"), store.ErrExists)
	e.wantNoLatest("d2")
	// A closed record's id stays taken.
	r.Open = false
	r.Version = e.replace(r)
	e.wantInsertErr(newRow("a1", "d1"), store.ErrExists)
	e.wantInsertErr(newRow("a1", "d3"), store.ErrExists)
	e.wantNoLatest("d3")
	e.wantLoad(r)
	e.wantLatest("d1", r)
}

func testApprovalReplaceCAS(e *aenv) {
	r := e.insert(newRow("a1", "d1"))
	stale := r
	stale.Version = 0
	e.wantReplaceErr(stale, store.ErrConflict)
	stale.Version = 2
	e.wantReplaceErr(stale, store.ErrConflict)

	r.Data = []byte("second")
	r.Due = at(time.Hour)
	r.KeepUntil = at(48 * time.Hour)
	r.Version = e.replace(r)
	if r.Version != 2 {
		e.Fatalf("version after one replace = %d, want 2", r.Version)
	}
	e.wantLoad(r)

	old := r
	old.Version = 1
	old.Data = []byte("lost")
	e.wantReplaceErr(old, store.ErrConflict)
	e.wantLoad(r)

	// ID and Digest never change: a replace naming another digest keeps
	// the stored one, and the index is untouched.
	moved := r
	moved.Digest = "d2"
	moved.Data = []byte("third")
	moved.Version = e.replace(moved)
	moved.Digest = "d1"
	e.wantLoad(moved)
	e.wantLatest("d1", moved)
	e.wantNoLatest("d2")

	// Due and KeepUntil can be cleared.
	moved.Due, moved.KeepUntil = time.Time{}, time.Time{}
	moved.Version = e.replace(moved)
	e.wantLoad(moved)
	e.wantDue(at(1000*time.Hour), 10)
}

func testApprovalReplaceRace(e *aenv) {
	r := e.insert(newRow("a1", "d1"))
	const racers = 8
	for round := range 5 {
		wins := make([]int64, racers)
		errs := make([]error, racers)
		together(racers, func(i int) {
			w := r
			w.Data = fmt.Appendf(nil, "round %d racer %d", round, i)
			wins[i], errs[i] = e.a.ReplaceApproval(e.ctx, w)
		})
		winner := e.oneWinner(round, errs, store.ErrConflict, "ErrConflict", fmt.Sprintf("replaced version %d", r.Version))
		if wins[winner] != r.Version+1 {
			e.Fatalf("round %d: winner got version %d, want %d", round, wins[winner], r.Version+1)
		}
		r.Version = wins[winner]
		r.Data = fmt.Appendf(nil, "round %d racer %d", round, winner)
		e.wantLoad(r)
	}
}

func testApprovalInsertRace(e *aenv) {
	const racers = 8
	for round := range 3 {
		digest := fmt.Sprintf("d%d", round)
		if round == 2 {
			// A closed latest record: the racers all find the digest free.
			c := newRow("closed", digest)
			c.Open = false
			e.insert(c)
		}
		errs := make([]error, racers)
		together(racers, func(i int) {
			errs[i] = e.a.InsertApproval(e.ctx, newRow(fmt.Sprintf("r%d-%d", round, i), digest))
		})
		winner := e.oneWinner(round, errs, store.ErrExists, "ErrExists", "inserted an open record for one digest")
		want := newRow(fmt.Sprintf("r%d-%d", round, winner), digest)
		want.Version = 1
		e.wantLatest(digest, want)
		for i := range racers {
			if i != winner {
				e.wantNoLoad(fmt.Sprintf("r%d-%d", round, i))
			}
		}
	}
}

func testApprovalNotFound(e *aenv) {
	e.wantNoLoad("nope")
	e.wantNoLatest("nope")
	e.wantNoLoad("")
	e.wantNoLatest("")
	e.wantReplaceErr(newRow("nope", "d1"), store.ErrNotFound)
	r := newRow("nope", "d1")
	r.Version = 1
	e.wantReplaceErr(r, store.ErrNotFound)
	e.wantDue(at(1000*time.Hour), 10)
	// A refused insert leaves nothing behind.
	e.insert(newRow("a1", "d1"))
	e.wantInsertErr(newRow("a2", "d1"), store.ErrExists)
	r = newRow("a2", "d1")
	r.Version = 1
	e.wantReplaceErr(r, store.ErrNotFound)
}

func testApprovalExpiry(e *aenv) {
	gone := newRow("gone", "d1")
	gone.KeepUntil = at(time.Hour)
	gone.Due = at(10 * time.Minute)
	gone = e.insert(gone)
	forever := newRow("forever", "d2")
	forever.KeepUntil = time.Time{}
	forever = e.insert(forever)
	later := newRow("later", "d3")
	later.KeepUntil = at(2 * time.Hour)
	later = e.insert(later)

	e.clock.Set(at(time.Hour - time.Second))
	e.sweep(0)
	e.wantLoad(gone)
	e.wantLatest("d1", gone)
	e.wantDue(at(time.Hour), 10, "gone")

	e.clock.Set(at(time.Hour)) // KeepUntil is the first instant it is gone
	e.wantNoLoad("gone")
	e.wantNoLatest("d1")
	e.wantReplaceErr(gone, store.ErrNotFound)
	e.wantDue(at(time.Hour), 10)
	// The digest of a row past KeepUntil is free, its id is not (yet).
	e.wantInsertErr(newRow("gone", "d9"), store.ErrExists)
	e.wantNoLatest("d9")
	again := e.insert(newRow("again", "d1"))
	e.wantLatest("d1", again)

	e.sweep(1)
	e.wantNoLoad("gone")
	e.wantLatest("d1", again)
	e.wantLoad(forever)
	e.wantLoad(later)
	// Swept, its id is free again.
	reborn := e.insert(newRow("gone", "d9"))
	e.wantLoad(reborn)

	// Replacing moves KeepUntil: later now goes at +3h, not +2h.
	later.KeepUntil = at(3 * time.Hour)
	later.Version = e.replace(later)
	e.clock.Set(at(2 * time.Hour))
	e.sweep(0)
	e.wantLoad(later)
	e.clock.Set(at(3 * time.Hour))
	e.wantNoLoad("later")
	e.wantNoLatest("d3")
	e.sweep(1)
	e.clock.Set(at(1000 * time.Hour))
	e.sweep(2) // again and reborn, kept 30 days
	e.wantLoad(forever)
	e.wantLatest("d2", forever)
}

func testApprovalDue(e *aenv) {
	add := func(id string, due, keep time.Duration) {
		r := newRow(id, "digest-"+id)
		r.Due, r.KeepUntil = time.Time{}, time.Time{}
		if due > 0 {
			r.Due = at(due)
		}
		if keep > 0 {
			r.KeepUntil = at(keep)
		}
		e.insert(r)
	}
	add("b", 2*time.Minute, 0)
	add("c", time.Minute, 0)
	add("a", time.Minute, 0)
	add("e", 10*time.Minute, 0)
	add("d", 0, 0)                      // no timer
	add("f", 30*time.Second, time.Hour) // gone at +1h
	add("g", 90*time.Second, time.Hour)

	e.wantDue(at(29*time.Second), 10)
	e.wantDue(at(30*time.Second), 10, "f")
	e.wantDue(at(time.Minute), 10, "f", "a", "c") // Due == now is due; ties by id
	e.wantDue(at(5*time.Minute), 10, "f", "a", "c", "g", "b")
	e.wantDue(at(5*time.Minute), 3, "f", "a", "c")
	e.wantDue(at(5*time.Minute), 1, "f")
	e.wantDue(at(5*time.Minute), 0)
	e.wantDue(at(1000*time.Hour), 100, "f", "a", "c", "g", "b", "e")

	// The store's clock decides what is gone; now only what is due.
	e.clock.Set(at(time.Hour))
	e.wantDue(at(5*time.Minute), 10, "a", "c", "b")

	// Replacing moves or clears a timer.
	b := e.load("b")
	b.Due = at(10 * time.Second)
	e.replace(b)
	c := e.load("c")
	c.Due = time.Time{}
	e.replace(c)
	d := e.load("d")
	d.Due = at(4 * time.Minute)
	e.replace(d)
	e.wantDue(at(5*time.Minute), 10, "b", "a", "d")
	e.wantDue(at(time.Minute), 10, "b", "a")
}

func testApprovalData(e *aenv) {
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = byte(i*7 + i>>8)
	}
	datas := map[string][]byte{
		"empty":  {},
		"nil":    nil,
		"binary": {0, 0xff, 0xfe, 0, '\n', 0x80, 0xc3, 0x28, 0},
		"nul":    {0},
		"utf8":   []byte("Überweisung 1 500 € an bob"),
		"big":    big,
	}
	for id, data := range datas {
		r := newRow(id, "d-"+id)
		r.Data = data
		r = e.insert(r)
		got := e.load(id)
		if !bytes.Equal(got.Data, data) || len(got.Data) != len(data) {
			e.Fatalf("LoadApproval(%q).Data = %d bytes %q, want %d bytes %q", id, len(got.Data), trunc(got.Data), len(data), trunc(data))
		}
		e.wantLatest("d-"+id, r)
	}
	// Replacing with each data in turn, from big to empty and back.
	r := e.load("big")
	for _, id := range []string{"empty", "binary", "nil", "big", "nul", "utf8", "empty"} {
		r.Data = datas[id]
		r.Version = e.replace(r)
		got := e.load("big")
		if !bytes.Equal(got.Data, r.Data) || len(got.Data) != len(r.Data) {
			e.Fatalf("after ReplaceApproval with %q data, LoadApproval.Data = %d bytes %q, want %d bytes",
				id, len(got.Data), trunc(got.Data), len(r.Data))
		}
	}
	// The store keeps its own copy.
	src := []byte("original")
	e.insert(store.ApprovalRow{ID: "copy", Digest: "d-copy", Open: true, Data: src})
	src[0] = 'X'
	got := e.load("copy")
	if string(got.Data) != "original" {
		e.Fatalf("InsertApproval kept the caller's slice: data now %q", got.Data)
	}
	got.Data[0] = 'Y'
	if again := e.load("copy"); string(again.Data) != "original" {
		e.Fatalf("LoadApproval returned the store's own slice: data now %q", again.Data)
	}
}

func testApprovalCanceled(e *aenv) {
	e.insert(newRow("a1", "d1"))
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	if err := e.a.InsertApproval(ctx, newRow("a2", "d2")); err == nil {
		e.Fatal("InsertApproval with a canceled context succeeded")
	}
	if _, err := e.a.LoadApproval(ctx, "a1"); err == nil {
		e.Fatal("LoadApproval with a canceled context succeeded")
	}
	if _, err := e.a.LatestApproval(ctx, "d1"); err == nil {
		e.Fatal("LatestApproval with a canceled context succeeded")
	}
	r := newRow("a1", "d1")
	r.Version = 1
	if _, err := e.a.ReplaceApproval(ctx, r); err == nil {
		e.Fatal("ReplaceApproval with a canceled context succeeded")
	}
	if _, err := e.a.DueApprovals(ctx, at(1000*time.Hour), 10); err == nil {
		e.Fatal("DueApprovals with a canceled context succeeded")
	}
	e.wantNoLoad("a2")
	r.Version = 1
	e.wantLoad(r)
}
