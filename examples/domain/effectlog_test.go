package domain

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Two writers (two instances) share one log; a line still being written is
// left for the next read.
func TestEffectLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "effects.log")
	if evs, err := ReadEffectLog(path); err != nil || len(evs) != 0 {
		t.Fatalf("missing log: %v, %v; want nothing", evs, err)
	}
	a, err := OpenEffectLog(path, "web-0")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenEffectLog(path, "web-1")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	endA, err := a.Start(EffectEvent{Tool: "charge_payment", ID: "inv_1", Workflow: "w1", Takeover: true})
	if err != nil {
		t.Fatal(err)
	}
	endB, err := b.Start(EffectEvent{Tool: "close_support_ticket", ID: "7", Workflow: "w2"})
	if err != nil {
		t.Fatal(err)
	}
	endB(nil)
	endA(errors.New("card declined"))

	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"event":"sta`); err != nil {
		t.Fatal(err)
	}
	f.Close()

	evs, err := ReadEffectLog(path)
	if err != nil {
		t.Fatal(err)
	}
	type line struct{ event, instance, id, err string }
	want := []line{{"start", "web-0", "inv_1", ""}, {"start", "web-1", "7", ""}, {"end", "web-1", "7", ""}, {"end", "web-0", "inv_1", "card declined"}}
	if len(evs) != len(want) {
		t.Fatalf("read %d lines, want %d: %+v", len(evs), len(want), evs)
	}
	for i, ev := range evs {
		if got := (line{ev.Event, ev.Instance, ev.ID, ev.Error}); got != want[i] {
			t.Errorf("line %d: %+v, want %+v", i+1, got, want[i])
		}
		if ev.PID != os.Getpid() || ev.At.IsZero() || ev.Seq == 0 {
			t.Errorf("line %d lacks its pid, time or sequence: %+v", i+1, ev)
		}
	}
	if !evs[0].Takeover || !evs[3].Takeover || evs[1].Takeover {
		t.Errorf("takeover flags %v %v %v, want the attempt's on both its lines", evs[0].Takeover, evs[1].Takeover, evs[3].Takeover)
	}
}
