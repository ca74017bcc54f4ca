package seal

import (
	"bytes"
	"testing"
)

// Derived keys follow the ring: the same secrets give the same keys in
// any process, a rotation keeps the old key's derivation while the key is
// in the ring, another purpose or secret gives another key, and no derived
// key is the token key.
func TestDeriveKeys(t *testing.T) {
	k1 := Key{ID: 1, Secret: bytes.Repeat([]byte{1}, 32)}
	k2 := Key{ID: 2, Secret: bytes.Repeat([]byte{2}, 32)}
	ring := func(keys ...Key) *Ring {
		r, err := NewRing(keys...)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a := ring(k1).DeriveKeys("tasks/principal")
	if len(a) != 1 || len(a[0]) != 32 {
		t.Fatalf("one key ring: %d keys", len(a))
	}
	if b := ring(k1).DeriveKeys("tasks/principal"); !bytes.Equal(a[0], b[0]) {
		t.Error("the same secret derived two keys")
	}
	rotated := ring(k2, k1).DeriveKeys("tasks/principal")
	if len(rotated) != 2 || !bytes.Equal(rotated[1], a[0]) || bytes.Equal(rotated[0], a[0]) {
		t.Error("after a rotation the old key's derivation is not second, or the new key derives the old one's")
	}
	if other := ring(k1).DeriveKeys("something else"); bytes.Equal(other[0], a[0]) {
		t.Error("two purposes derived one key")
	}
	if bytes.Equal(a[0], k1.Secret) {
		t.Error("the derived key is the secret")
	}
}
