package seal

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"testing"
	"time"
)

// Run both with
//
//	go test ./mrtr/seal -run=^$ -bench=SealOpen -benchmem
//
// BenchmarkSealOpen / BenchmarkBareAESGCMSealOpen is the cost of the
// token format (header, binding AAD, base64url, strict checks, expiry)
// over the AEAD itself. Both use the same derived key and a 51-byte
// plaintext.

func BenchmarkSealOpen(b *testing.B) {
	c := New(mustRing(b, Key{ID: 1, Secret: secretOf(1)}), Options{})
	var tok string
	for b.Loop() {
		var err error
		tok, err = c.Seal(testBinding, 10*time.Minute, plaintext51)
		if err != nil {
			b.Fatal(err)
		}
		pt, err := c.Open(testBinding, tok)
		if err != nil || len(pt) != len(plaintext51) {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(tok)), "token-bytes")
}

// BenchmarkBareAESGCMSealOpen is plain crypto/cipher AES-256-GCM with the
// same key and plaintext: random-nonce draws a fresh nonce from
// crypto/rand each time, as any real use must (and as Seal does);
// fixed-nonce leaves that out and is the pure AEAD floor.
func BenchmarkBareAESGCMSealOpen(b *testing.B) {
	key, err := hkdf.Key(sha256.New, secretOf(1), nil, hkdfInfo, 32)
	if err != nil {
		b.Fatal(err)
	}
	block, _ := aes.NewCipher(key)
	gcm, _ := cipher.NewGCM(block)
	for _, tc := range []struct {
		name   string
		random bool
	}{{"random-nonce", true}, {"fixed-nonce", false}} {
		b.Run(tc.name, func(b *testing.B) {
			nonce := make([]byte, NonceLen)
			var sealed []byte
			for b.Loop() {
				if tc.random {
					rand.Read(nonce)
				}
				sealed = gcm.Seal(nil, nonce, plaintext51, nil)
				pt, err := gcm.Open(nil, nonce, sealed, nil)
				if err != nil || !bytes.Equal(pt, plaintext51) {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(NonceLen+len(sealed)), "sealed-bytes")
		})
	}
}

// BenchmarkOpenRejects measures the cost of rejecting garbage, which an
// attacker can send at will: oversized input is refused before decoding.
func BenchmarkOpenRejects(b *testing.B) {
	c := New(mustRing(b, Key{ID: 1, Secret: secretOf(1)}), Options{})
	tok := mustSeal(b, c, testBinding, time.Minute, plaintext51)
	raw, _ := b64.DecodeString(tok)
	raw[40] ^= 1
	forged := b64.EncodeToString(raw)
	cases := map[string]string{
		"too-long":      string(make([]byte, 1<<20)),
		"not-canonical": tok[:60] + "\n" + tok[60:],
		"forged":        forged,
	}
	for name, s := range cases {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.Open(testBinding, s); err == nil {
					b.Fatal("opened")
				}
			}
		})
	}
}

// BenchmarkSealOpenVsFloor puts the token next to the floor any JSON-safe
// AEAD token pays, in one run (compare the two sub-benchmarks; the ratio is
// the figure docs/benchmarks.md reports): a random nonce, AES-256-GCM over
// the same plaintext with the same associated data, and base64url both
// ways.
//
//	go test ./mrtr/seal -run=^$ -bench=SealOpenVsFloor -benchmem -count=5
func BenchmarkSealOpenVsFloor(b *testing.B) {
	c := New(mustRing(b, Key{ID: 1, Secret: secretOf(1)}), Options{})
	b.Run("token", func(b *testing.B) {
		for b.Loop() {
			tok, err := c.Seal(testBinding, 10*time.Minute, plaintext51)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.Open(testBinding, tok); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("floor", func(b *testing.B) {
		key, err := hkdf.Key(sha256.New, secretOf(1), nil, hkdfInfo, 32)
		if err != nil {
			b.Fatal(err)
		}
		block, _ := aes.NewCipher(key)
		gcm, _ := cipher.NewGCM(block)
		al, _ := aadLen(&testBinding)
		aad := appendAAD(make([]byte, 0, al), make([]byte, HeaderLen), &testBinding)
		for b.Loop() {
			buf := make([]byte, NonceLen, NonceLen+len(plaintext51)+gcm.Overhead())
			rand.Read(buf)
			sealed := gcm.Seal(buf, buf[:NonceLen], plaintext51, aad)
			tok := b64.EncodeToString(sealed)
			raw, err := b64.DecodeString(tok)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := gcm.Open(nil, raw[:NonceLen], raw[NonceLen:], aad); err != nil {
				b.Fatal(err)
			}
		}
	})
}
