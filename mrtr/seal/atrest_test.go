package seal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// identity names a record as the runtime does: audience, reference,
// workflow, subject, principal hash.
var identity = []string{"ticket-server", "9DqA2M1kZ4A0FJ_MDk0wkw", "c694c4b4ca298e2b0f18505478e80b4b", "tools/call:vault", "46f35409"}

func atRestReason(t *testing.T, err error) Reason {
	t.Helper()
	var se *Error
	if !errors.As(err, &se) || !errors.Is(err, ErrAtRest) || errors.Is(err, ErrInvalid) {
		t.Fatalf("want an at-rest *Error, got %v", err)
	}
	return se.Reason
}

func TestAtRestRoundTrip(t *testing.T) {
	c, _ := testCodec(t, mustRing(t, Key{ID: 7, Secret: secretOf(1)}))
	for _, p := range [][]byte{nil, {}, []byte("owner-of-v-7"), bytes.Repeat([]byte{0xff}, 70000)} {
		sealed, err := c.SealAtRest(p, identity...)
		if err != nil {
			t.Fatal(err)
		}
		if len(sealed) != len(p)+AtRestOverhead || sealed[0] != AtRestVersion || binary.BigEndian.Uint32(sealed[1:5]) != 7 {
			t.Fatalf("%d-byte plaintext sealed into %d bytes, header % x", len(p), len(sealed), sealed[:5])
		}
		if len(p) > 4 && bytes.Contains(sealed, p[:len(p)/2]) {
			t.Fatal("the plaintext shows through")
		}
		got, err := c.OpenAtRest(sealed, identity...)
		if err != nil || !bytes.Equal(got, p) {
			t.Fatalf("open: %q, %v", got, err)
		}
	}
}

// A record opens only under the identity it was sealed with: moved to
// another reference, workflow, subject or principal, it does not, and the
// parts are length-prefixed, so no two identities share bytes.
func TestAtRestIdentityBinding(t *testing.T) {
	c, _ := testCodec(t, mustRing(t, Key{ID: 1, Secret: secretOf(1)}))
	sealed, err := c.SealAtRest([]byte("owner-of-v-7"), identity...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range identity {
		other := append([]string(nil), identity...)
		other[i] += "x"
		if _, err := c.OpenAtRest(sealed, other...); atRestReason(t, err) != Forged {
			t.Errorf("part %d changed: %v", i, err)
		}
	}
	for _, other := range [][]string{nil, identity[:4], append(append([]string(nil), identity...), "")} {
		if _, err := c.OpenAtRest(sealed, other...); atRestReason(t, err) != Forged {
			t.Errorf("identity %q: %v", other, err)
		}
	}
	ab, err := c.SealAtRest([]byte("x"), "ab", "c")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.OpenAtRest(ab, "a", "bc"); atRestReason(t, err) != Forged {
		t.Errorf("ab|c opened as a|bc: %v", err)
	}
}

func TestAtRestTampered(t *testing.T) {
	c, _ := testCodec(t, mustRing(t, Key{ID: 1, Secret: secretOf(1)}))
	sealed, err := c.SealAtRest([]byte("owner-of-v-7"), identity...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sealed {
		for _, bit := range []byte{0x01, 0x80} {
			b := bytes.Clone(sealed)
			b[i] ^= bit
			if p, err := c.OpenAtRest(b, identity...); err == nil {
				t.Fatalf("byte %d bit %#x flipped: opened %q", i, bit, p)
			}
		}
	}
	for _, n := range []int{0, 1, AtRestOverhead - 1, len(sealed) - 1} {
		if _, err := c.OpenAtRest(sealed[:n], identity...); err == nil {
			t.Fatalf("cut to %d bytes: opened", n)
		}
	}
	if _, err := c.OpenAtRest(sealed[:AtRestOverhead-1], identity...); atRestReason(t, err) != Truncated {
		t.Errorf("truncated: %v", err)
	}
	if _, err := c.OpenAtRest(append(bytes.Clone(sealed), 0), identity...); atRestReason(t, err) != Forged {
		t.Errorf("a byte appended: %v", err)
	}
	b := bytes.Clone(sealed)
	b[0] = 2
	if _, err := c.OpenAtRest(b, identity...); atRestReason(t, err) != UnknownVersion {
		t.Errorf("version 2: %v", err)
	}
}

// Another deployment's ring does not open a record: a key of the same id
// with another secret fails authentication, another id is unknown.
func TestAtRestWrongRing(t *testing.T) {
	c, _ := testCodec(t, mustRing(t, Key{ID: 1, Secret: secretOf(1)}))
	sealed, err := c.SealAtRest([]byte("owner-of-v-7"), identity...)
	if err != nil {
		t.Fatal(err)
	}
	sameID, _ := testCodec(t, mustRing(t, Key{ID: 1, Secret: secretOf(2)}))
	if _, err := sameID.OpenAtRest(sealed, identity...); atRestReason(t, err) != Forged {
		t.Errorf("same id, other secret: %v", err)
	}
	otherID, _ := testCodec(t, mustRing(t, Key{ID: 2, Secret: secretOf(1)}))
	if _, err := otherID.OpenAtRest(sealed, identity...); atRestReason(t, err) != UnknownKey || !strings.Contains(err.Error(), "key id 1") {
		t.Errorf("other id: %v", err)
	}
}

// Records rotate with the ring: sealed under key 1, a record opens while
// key 1 is in the ring; new records use the promoted key 2; once key 1 is
// retired, its records do not open.
func TestAtRestRotation(t *testing.T) {
	k1, k2 := Key{ID: 1, Secret: secretOf(1)}, Key{ID: 2, Secret: secretOf(2)}
	before, _ := testCodec(t, mustRing(t, k1))
	old, err := before.SealAtRest([]byte("sealed before"), identity...)
	if err != nil {
		t.Fatal(err)
	}
	for _, ring := range [][]Key{{k1, k2}, {k2, k1}} {
		c, _ := testCodec(t, mustRing(t, ring...))
		if p, err := c.OpenAtRest(old, identity...); err != nil || string(p) != "sealed before" {
			t.Fatalf("ring %d,%d: %q, %v", ring[0].ID, ring[1].ID, p, err)
		}
	}
	promoted, _ := testCodec(t, mustRing(t, k2, k1))
	fresh, err := promoted.SealAtRest([]byte("sealed after"), identity...)
	if err != nil {
		t.Fatal(err)
	}
	if kid := binary.BigEndian.Uint32(fresh[1:5]); kid != 2 {
		t.Fatalf("a new record sealed under key %d, want the promoted 2", kid)
	}
	if _, err := before.OpenAtRest(fresh, identity...); atRestReason(t, err) != UnknownKey {
		t.Errorf("an instance without key 2 opened it: %v", err)
	}
	retired, _ := testCodec(t, mustRing(t, k2))
	if _, err := retired.OpenAtRest(old, identity...); atRestReason(t, err) != UnknownKey {
		t.Errorf("key 1 retired: %v", err)
	}
	if p, err := retired.OpenAtRest(fresh, identity...); err != nil || string(p) != "sealed after" {
		t.Errorf("key 2 record after retiring key 1: %q, %v", p, err)
	}
}

// The at-rest key is not the token key of the same secret: data sealed at
// rest does not open with the token AEAD under the same associated data.
func TestAtRestKeyIsNotTheTokenKey(t *testing.T) {
	r := mustRing(t, Key{ID: 1, Secret: secretOf(1)})
	c, _ := testCodec(t, r)
	sealed, err := c.SealAtRest([]byte("owner-of-v-7"), identity...)
	if err != nil {
		t.Fatal(err)
	}
	aad := appendAtRestAAD(nil, sealed[:5], identity)
	if _, err := r.keys[0].aead.Open(nil, sealed[5:17], sealed[17:], aad); err == nil {
		t.Fatal("the token key opens data sealed at rest")
	}
	if _, err := r.keys[0].rest.Open(nil, sealed[5:17], sealed[17:], aad); err != nil {
		t.Fatal(err)
	}
}
