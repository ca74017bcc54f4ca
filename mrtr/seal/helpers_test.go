package seal

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// t0 is the fixed "now" of most tests.
var t0 = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)

// secretOf returns a deterministic 32-byte test secret.
func secretOf(fill byte) []byte { return bytes.Repeat([]byte{fill}, 32) }

func mustRing(t testing.TB, keys ...Key) *Ring {
	t.Helper()
	r, err := NewRing(keys...)
	if err != nil {
		t.Fatalf("NewRing: %v", err)
	}
	return r
}

// clock is a settable clock for Options.Now.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// detRand is a deterministic nonce source that never repeats a nonce
// within a run (unlike a constant reader, which would reuse GCM nonces).
func detRand(seed byte) *rand.ChaCha8 {
	var s [32]byte
	s[0] = seed
	return rand.NewChaCha8(s)
}

// testCodec returns a codec over ring with a settable clock at t0 and a
// deterministic nonce source.
func testCodec(t testing.TB, ring *Ring) (*Codec, *clock) {
	t.Helper()
	clk := &clock{t: t0}
	return New(ring, Options{Now: clk.now, Rand: detRand(1)}), clk
}

var testBinding = Binding{
	Audience:   "ticket-server",
	Subject:    "tools/call:create_ticket",
	Principal:  "user:alice@example.com",
	ArgsDigest: sha256.Sum256([]byte(`{"priority":"high","title":"printer on fire"}`)),
}

// plaintext51 is a 51-byte continuation, the size used across the docs.
var plaintext51 = []byte(`{"step":2,"ticket":"T-123","wf":"0123456789abcdef"}`)

func init() {
	if len(plaintext51) != 51 {
		panic("plaintext51 must be 51 bytes")
	}
}

func mustSeal(t testing.TB, c *Codec, b Binding, ttl time.Duration, pt []byte) string {
	t.Helper()
	tok, err := c.Seal(b, ttl, pt)
	if err != nil {
		t.Fatalf("Seal: %v", err)
	}
	return tok
}

func mustOpen(t testing.TB, c *Codec, b Binding, tok string, want []byte) {
	t.Helper()
	got, err := c.Open(b, tok)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Open = %q, want %q", got, want)
	}
}

// reasonOf asserts err is a well-formed Open failure and returns its Reason.
func reasonOf(t testing.TB, err error) Reason {
	t.Helper()
	if err == nil {
		t.Fatal("Open succeeded, want failure")
	}
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("errors.Is(%v, ErrInvalid) = false", err)
	}
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("errors.As(%v, *Error) = false", err)
	}
	if se.Reason < TooLong || se.Reason > Expired {
		t.Fatalf("reason %d out of range", se.Reason)
	}
	return se.Reason
}

// wantReason asserts that Open failed with one of the given reasons.
func wantReason(t testing.TB, err error, what string, allowed ...Reason) {
	t.Helper()
	r := reasonOf(t, err)
	if !slices.Contains(allowed, r) {
		t.Fatalf("%s: reason %v, want one of %v (err: %v)", what, r, allowed, err)
	}
}

// reasonIn asserts that r is one of allowed.
func reasonIn(t testing.TB, r Reason, what string, allowed ...Reason) {
	t.Helper()
	if !slices.Contains(allowed, r) {
		t.Errorf("%s: reason %v, want one of %v", what, r, allowed)
	}
}

// openFails opens tok and fails the test if it opens; it returns the reason.
func openFails(t testing.TB, c *Codec, b Binding, tok, what string) Reason {
	t.Helper()
	pt, err := c.Open(b, tok)
	if err == nil {
		t.Fatalf("%s: token %q opened (plaintext %q)", what, tok, pt)
	}
	r := reasonOf(t, err)
	if pt != nil && r != Expired { // an authentic expired token returns its plaintext
		t.Fatalf("%s: failed Open (%v) returned plaintext %q", what, r, pt)
	}
	return r
}
