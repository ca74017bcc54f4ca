package seal

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"testing"
	"time"
)

// Known-answer vector. Inputs:
//
//	secret    00 01 02 ... 1f (32 bytes), key id 7
//	clock     2026-07-28T00:00:00Z, ttl 10m → exp 1785197400
//	nonce     a0 a1 ... ab (the first 12 bytes of the injected reader)
//	binding   Audience "ticket-server", Subject "tools/call:create_ticket",
//	          Principal "user:alice", ArgsDigest SHA-256(`{"title":"printer on fire"}`)
//	plaintext `{"step":2,"ticket":"T-123","wf":"0123456789abcdef"}` (51 bytes)
//
// The token and the derived key were also reproduced with an unrelated
// implementation (Python's cryptography package: HKDF + AESGCM) from the
// layout in the package documentation.
const (
	katToken = "AQAAAAcAAAAAamfzWKChoqOkpaanqKmqq724ZYrXdtWmXYT656PMgTdAc1afAqMpLNfo_DIy1Y-YMz1_YAujTpK8GdWBig307EyTp2bOs4j0L_SdneYn6XD-N2M"
	// katAEADKey is HKDF-SHA256(secret, nil, "mrtrgen/requestState/v1/aes-256-gcm"),
	// pinned so that a change of derivation cannot go unnoticed.
	katAEADKey = "691ea314dffc6b3fb0423b22e145f997c6e09acde406ba369c95fcb4eaae5423"
)

var (
	katSecret  = seq(0x00, 32)
	katNonce   = seq(0xa0, 12)
	katClock   = time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC)
	katBinding = Binding{
		Audience:   "ticket-server",
		Subject:    "tools/call:create_ticket",
		Principal:  "user:alice",
		ArgsDigest: sha256.Sum256([]byte(`{"title":"printer on fire"}`)),
	}
	katPlaintext = []byte(`{"step":2,"ticket":"T-123","wf":"0123456789abcdef"}`)
)

func seq(start byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = start + byte(i)
	}
	return b
}

func katCodec(t *testing.T) *Codec {
	t.Helper()
	ring := mustRing(t, Key{ID: 7, Secret: katSecret})
	return New(ring, Options{
		Now:  func() time.Time { return katClock },
		Rand: bytes.NewReader(katNonce),
	})
}

func TestKnownAnswer(t *testing.T) {
	c := katCodec(t)
	tok, err := c.Seal(katBinding, 10*time.Minute, katPlaintext)
	if err != nil {
		t.Fatal(err)
	}
	if tok != katToken {
		t.Fatalf("Seal produced\n%s\nwant\n%s", tok, katToken)
	}
	mustOpen(t, c, katBinding, katToken, katPlaintext)
}

// hkdfSHA256 is RFC 5869 written out with HMAC, independent of crypto/hkdf.
func hkdfSHA256(secret, salt []byte, info string, n int) []byte {
	if salt == nil {
		salt = make([]byte, sha256.Size)
	}
	ext := hmac.New(sha256.New, salt)
	ext.Write(secret)
	prk := ext.Sum(nil)
	var okm, prev []byte
	for i := byte(1); len(okm) < n; i++ {
		m := hmac.New(sha256.New, prk)
		m.Write(prev)
		m.Write([]byte(info))
		m.Write([]byte{i})
		prev = m.Sum(nil)
		okm = append(okm, prev...)
	}
	return okm[:n]
}

// TestKnownAnswerLayout takes katToken apart by the layout in the package
// documentation and decrypts it with crypto/aes and crypto/cipher directly,
// then rebuilds it from scratch, without using the package's own code.
func TestKnownAnswerLayout(t *testing.T) {
	raw, err := base64.RawURLEncoding.DecodeString(katToken)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != 1+4+8+12+len(katPlaintext)+16 {
		t.Fatalf("decoded length %d", len(raw))
	}
	version, kid, exp := raw[0], binary.BigEndian.Uint32(raw[1:5]), binary.BigEndian.Uint64(raw[5:13])
	nonce, sealed := raw[13:25], raw[25:]
	if version != 0x01 || kid != 7 || exp != uint64(katClock.Add(10*time.Minute).Unix()) || exp != 1785197400 {
		t.Fatalf("header: version %#x kid %d exp %d", version, kid, exp)
	}
	if !bytes.Equal(nonce, katNonce) {
		t.Fatalf("nonce %x, want %x", nonce, katNonce)
	}

	key := hkdfSHA256(katSecret, nil, "mrtrgen/requestState/v1/aes-256-gcm", 32)
	if got := hex.EncodeToString(key); got != katAEADKey {
		t.Errorf("derived AEAD key %s, want %s", got, katAEADKey)
	}

	// Associated data, written out by hand.
	var aad []byte
	aad = append(aad, "mrtrgen/requestState/v1"...)
	aad = append(aad, raw[:13]...)
	for _, f := range []string{katBinding.Audience, katBinding.Subject, katBinding.Principal} {
		aad = append(aad, byte(len(f)>>24), byte(len(f)>>16), byte(len(f)>>8), byte(len(f)))
		aad = append(aad, f...)
	}
	aad = append(aad, 0, 0, 0, 32)
	aad = append(aad, katBinding.ArgsDigest[:]...)

	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := gcm.Open(nil, nonce, sealed, aad)
	if err != nil {
		t.Fatalf("independent AES-256-GCM open: %v", err)
	}
	if !bytes.Equal(pt, katPlaintext) {
		t.Fatalf("independent open = %q", pt)
	}
	// Without the binding (the AAD not stored in the token) it must fail.
	if _, err := gcm.Open(nil, nonce, sealed, aad[:len(aad)-1]); err == nil {
		t.Fatal("opened with truncated AAD")
	}

	// Rebuild the token from the parts.
	rebuilt := []byte{0x01, 0, 0, 0, 7}
	rebuilt = binary.BigEndian.AppendUint64(rebuilt, 1785197400)
	rebuilt = append(rebuilt, katNonce...)
	rebuilt = gcm.Seal(rebuilt, katNonce, katPlaintext, aad)
	if got := base64.RawURLEncoding.EncodeToString(rebuilt); got != katToken {
		t.Fatalf("independently built token\n%s\nwant\n%s", got, katToken)
	}
}

// TestKnownAnswerRejections: the vector fails for any other binding, after
// expiry, and under another key.
func TestKnownAnswerRejections(t *testing.T) {
	c := katCodec(t)
	b := katBinding
	b.Principal = "user:alic"
	if r := openFails(t, c, b, katToken, "other principal"); r != Forged {
		t.Errorf("other principal: %v", r)
	}
	late := New(c.ring, Options{Now: func() time.Time { return katClock.Add(10*time.Minute + DefaultSkew + time.Second) }})
	if r := openFails(t, late, katBinding, katToken, "late"); r != Expired {
		t.Errorf("late: %v", r)
	}
	other := New(mustRing(t, Key{ID: 7, Secret: seq(0x01, 32)}), Options{Now: c.now})
	if r := openFails(t, other, katBinding, katToken, "other secret"); r != Forged {
		t.Errorf("other secret: %v", r)
	}
}
