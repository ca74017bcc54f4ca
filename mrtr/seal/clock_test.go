package seal

import (
	"testing"
	"time"
)

// TestWallClockBrackets: the wall clock Seal reads is never later, and the
// one Open reads never earlier, than time.Now read in between (its wall
// reading), so the cheaper clock never lengthens a token's life.
func TestWallClockBrackets(t *testing.T) {
	for range 1000 {
		before := wallClock(false)
		now := time.Now().Round(0)
		after := wallClock(true)
		if before.After(now) || after.Before(now) {
			t.Fatalf("wallClock(false) %v, time.Now %v, wallClock(true) %v: not in order", before, now, after)
		}
	}
}

// TestDefaultClockExpiry: with no injected clock a fresh token opens, and
// the codec's Now is time.Now.
func TestDefaultClockExpiry(t *testing.T) {
	c := New(mustRing(t, Key{ID: 1, Secret: secretOf(1)}), Options{Skew: -1})
	tok, err := c.Seal(testBinding, time.Second, plaintext51)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Open(testBinding, tok); err != nil {
		t.Fatalf("Open of a fresh token: %v", err)
	}
	if d := time.Since(c.Now()); d < 0 || d > time.Minute {
		t.Fatalf("Now is %v from time.Now", d)
	}
}
