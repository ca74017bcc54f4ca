package seal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Sealing at rest: data a server keeps in its store between rounds (the
// continuation record of a workflow kept by reference, which may hold
// sensitive values) is sealed under the same key ring as requestState, so
// that nobody who reads the store, a backup or a replica reads the data,
// and nobody who can write it moves one record's bytes to another.
//
// A sealed record is raw bytes (a store keeps bytes; no base64):
//
//	version(1)=0x01 | kid(4, big-endian) | nonce(12) | ciphertext | tag(16)
//
// so AtRestOverhead (33) bytes more than the plaintext. The AEAD is
// AES-256-GCM keyed with HKDF-SHA256(secret, salt = nil,
// info = "mrtrgen/at-rest/v1/aes-256-gcm"): another key than the token
// key of the same secret, so neither kind of ciphertext opens as the
// other. The associated data, never stored, is
//
//	"mrtrgen/at-rest/v1" | version|kid | len32(identity[0]) identity[0] | …
//
// where identity is what the caller names the record by (its key in the
// store, its workflow, whose it is): the bytes open only under the same
// identity. There is no expiry: the store's own expiry of the record
// bounds it. A record sealed under a key opens while that key is in the
// ring, so the token rotation procedure (see the package documentation)
// rotates records too, provided records live no longer than tokens.

// AtRestVersion is the version byte of data sealed at rest.
const AtRestVersion byte = 0x01

// AtRestOverhead is the number of bytes SealAtRest adds to a plaintext.
const AtRestOverhead = 1 + 4 + NonceLen + TagLen

// AtRestDomain starts the associated data of data sealed at rest.
const AtRestDomain = "mrtrgen/at-rest/v1"

// atRestInfo is the HKDF info string of the at-rest AEAD key.
const atRestInfo = "mrtrgen/at-rest/v1/aes-256-gcm"

// ErrAtRest is matched (with errors.Is) by every error OpenAtRest returns.
var ErrAtRest = errors.New("seal: data sealed at rest does not open")

// SealAtRest encrypts plaintext under the ring's sealing key, bound to
// identity (the record's name in its store, in the caller's order). Errors
// are configuration errors (no randomness).
func (c *Codec) SealAtRest(plaintext []byte, identity ...string) ([]byte, error) {
	al, ok := atRestAADLen(identity)
	if !ok {
		return nil, errors.New("seal: record identity longer than 4 GiB")
	}
	key := &c.ring.keys[0]
	head := 1 + 4 + NonceLen
	out := make([]byte, head, head+len(plaintext)+TagLen)
	out[0] = AtRestVersion
	binary.BigEndian.PutUint32(out[1:5], key.id)
	nonce := out[5:head]
	if err := c.readNonce(nonce); err != nil {
		return nil, fmt.Errorf("seal: reading nonce: %w", err)
	}
	aad := appendAtRestAAD(make([]byte, 0, al), out[:5], identity)
	return key.rest.Seal(out, nonce, plaintext, aad), nil
}

// OpenAtRest checks and decrypts data SealAtRest sealed under identity.
// Every error matches ErrAtRest and is an [*Error] with its Reason
// (Truncated, UnknownVersion, UnknownKey, Forged); its text names no
// plaintext and no identity.
func (c *Codec) OpenAtRest(sealed []byte, identity ...string) ([]byte, error) {
	if len(sealed) < AtRestOverhead {
		return nil, atRestInvalid(Truncated, fmt.Sprintf("%d bytes, minimum %d", len(sealed), AtRestOverhead))
	}
	if sealed[0] != AtRestVersion {
		return nil, atRestInvalid(UnknownVersion, fmt.Sprintf("version 0x%02x", sealed[0]))
	}
	kid := binary.BigEndian.Uint32(sealed[1:5])
	k := c.ring.lookupKey(kid)
	if k == nil {
		return nil, atRestInvalid(UnknownKey, fmt.Sprintf("key id %d is not in the ring", kid))
	}
	al, ok := atRestAADLen(identity)
	if !ok {
		return nil, atRestInvalid(Forged, "record identity longer than 4 GiB")
	}
	aad := appendAtRestAAD(make([]byte, 0, al), sealed[:5], identity)
	head := 1 + 4 + NonceLen
	plaintext, err := k.rest.Open(nil, sealed[5:head], sealed[head:], aad)
	if err != nil {
		return nil, atRestInvalid(Forged, fmt.Sprintf("authentication failed under key id %d", kid))
	}
	return plaintext, nil
}

// atRestAADLen is the exact length of the associated data for identity;
// false when a part is too long for its 4-byte length prefix.
func atRestAADLen(identity []string) (int, bool) {
	n := len(AtRestDomain) + 1 + 4
	for _, s := range identity {
		if uint64(len(s)) > math.MaxUint32 {
			return 0, false
		}
		n += 4 + len(s)
	}
	return n, true
}

// appendAtRestAAD appends AtRestDomain, the header (version|kid) and each
// part of identity with its 4-byte length: distinct identities give
// distinct byte strings.
func appendAtRestAAD(dst, header []byte, identity []string) []byte {
	dst = append(dst, AtRestDomain...)
	dst = append(dst, header...)
	for _, s := range identity {
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(s)))
		dst = append(dst, s...)
	}
	return dst
}

func atRestInvalid(r Reason, detail string) error {
	return &Error{Reason: r, detail: detail, atRest: true}
}
