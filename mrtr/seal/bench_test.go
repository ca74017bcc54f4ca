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
		f := newFloor(b)
		for b.Loop() {
			f.sealOpen(b)
		}
	})
}

// floor is the least any JSON-safe AEAD token can do: a random nonce,
// AES-256-GCM over the same plaintext with the same associated data
// (built once, outside the loop) and base64url both ways.
type floor struct {
	gcm cipher.AEAD
	aad []byte
}

func newFloor(b *testing.B) *floor {
	key, err := hkdf.Key(sha256.New, secretOf(1), nil, hkdfInfo, 32)
	if err != nil {
		b.Fatal(err)
	}
	block, _ := aes.NewCipher(key)
	gcm, _ := cipher.NewGCM(block)
	al, _ := aadLen(&testBinding)
	return &floor{gcm: gcm, aad: appendAAD(make([]byte, 0, al), make([]byte, HeaderLen), &testBinding)}
}

func (f *floor) sealOpen(b *testing.B) {
	buf := make([]byte, NonceLen, NonceLen+len(plaintext51)+f.gcm.Overhead())
	rand.Read(buf)
	sealed := f.gcm.Seal(buf, buf[:NonceLen], plaintext51, f.aad)
	tok := b64.EncodeToString(sealed)
	raw, err := b64.DecodeString(tok)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := f.gcm.Open(nil, raw[:NonceLen], raw[NonceLen:], f.aad); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSealOpenInterleaved is the issue 29 figure: the token's seal +
// open against the floor's *in time*, the two interleaved in one loop so
// that whatever else the machine does hits both alike. Each iteration runs
// a batch of token seal+opens and a batch of floor seal+opens (which goes
// first alternates), each batch timed on its own; the batch keeps the
// clock reads out of the figures (two per batch, not per operation).
// Reported: token-ns/op and floor-ns/op (per seal+open) and their ratio
// token/floor.
//
//	go test ./mrtr/seal -run '^$' -bench SealOpenInterleaved -benchmem -count 5
func BenchmarkSealOpenInterleaved(b *testing.B) {
	const batch = 8
	c := New(mustRing(b, Key{ID: 1, Secret: secretOf(1)}), Options{})
	f := newFloor(b)
	token := func() {
		for range batch {
			tok, err := c.Seal(testBinding, 10*time.Minute, plaintext51)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.Open(testBinding, tok); err != nil {
				b.Fatal(err)
			}
		}
	}
	floor := func() {
		for range batch {
			f.sealOpen(b)
		}
	}
	var tokenD, floorD time.Duration
	n := 0
	for b.Loop() {
		if n%2 == 0 {
			t0 := time.Now()
			token()
			t1 := time.Now()
			floor()
			t2 := time.Now()
			tokenD += t1.Sub(t0)
			floorD += t2.Sub(t1)
		} else {
			t0 := time.Now()
			floor()
			t1 := time.Now()
			token()
			t2 := time.Now()
			floorD += t1.Sub(t0)
			tokenD += t2.Sub(t1)
		}
		n++
	}
	ops := float64(n * batch)
	b.ReportMetric(float64(tokenD.Nanoseconds())/ops, "token-ns/op")
	b.ReportMetric(float64(floorD.Nanoseconds())/ops, "floor-ns/op")
	b.ReportMetric(float64(tokenD)/float64(floorD), "token/floor")
}
