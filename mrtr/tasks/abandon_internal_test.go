package tasks

import (
	"errors"
	"testing"
	"time"
)

// AbandonStep fails a task whose step an executor gave up on, but only
// while the record still waits for that step and no run holds it.
func TestAbandonStep(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	st := NewMemoryStore(clock)
	m, err := New(Config{Store: st, Now: clock, SweepInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close(t.Context()) })
	put := func(id string, step int, status Status, lease *Lease) {
		rec := &Record{ID: id, Tool: "deploy", Status: status, Step: step, Lease: lease, CreatedAt: now, UpdatedAt: now, TTL: time.Hour}
		if err := st.Create(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
	}
	put("queued", 2, StatusWorking, nil)
	put("lapsed", 2, StatusWorking, &Lease{Runner: "dead", Until: now.Add(-time.Second)})
	put("held", 2, StatusWorking, &Lease{Runner: "alive", Until: now.Add(time.Minute)})
	put("moved-on", 3, StatusWorking, nil)
	put("waiting", 2, StatusInputRequired, nil)
	for _, tc := range []struct {
		id   string
		want Status
	}{
		{"queued", StatusFailed},
		{"lapsed", StatusFailed},
		{"held", StatusWorking},
		{"moved-on", StatusWorking},
		{"waiting", StatusInputRequired},
	} {
		if err := m.AbandonStep(t.Context(), tc.id, 2, errors.New("gave up")); err != nil {
			t.Fatalf("%s: %v", tc.id, err)
		}
		rec, err := st.Get(t.Context(), tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Status != tc.want {
			t.Errorf("%s: %s after AbandonStep, want %s", tc.id, rec.Status, tc.want)
		}
		if tc.want == StatusFailed && (rec.Error == nil || rec.Error.Code != codeInternalError || rec.Lease != nil) {
			t.Errorf("%s: failed with %+v, lease %+v", tc.id, rec.Error, rec.Lease)
		}
	}
	if err := m.AbandonStep(t.Context(), "gone", 1, errors.New("gave up")); err != nil {
		t.Errorf("an unknown task: %v", err)
	}
}
