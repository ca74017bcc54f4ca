package seal

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fuzzEnv is the deterministic setup shared by every fuzz worker: fixed
// keys, a fixed clock and a seeded nonce source, so every worker computes
// the same valid tokens.
type fuzzEnv struct {
	codec   *Codec
	binding Binding
	valid   map[string][]byte // the only tokens that may open under binding
	invalid []string          // authentic tokens that must not open (other binding, expired)
	expired map[string][]byte // the only tokens whose failed Open returns plaintext
}

const fuzzMaxLen = 1024

func newFuzzEnv(t testing.TB) *fuzzEnv {
	k1 := Key{ID: 1, Secret: secretOf(0x5a)}
	k2 := Key{ID: 0xfffffffe, Secret: secretOf(0xa5)}
	now := func() time.Time { return t0 }
	c1 := New(mustRing(t, k1, k2), Options{Now: now, MaxTokenLen: fuzzMaxLen, Rand: detRand(42)})
	c2 := New(mustRing(t, k2, k1), Options{Now: now, MaxTokenLen: fuzzMaxLen, Rand: detRand(43)})
	past := New(c1.ring, Options{Now: func() time.Time { return t0.Add(-time.Hour) }, Rand: detRand(44)})

	e := &fuzzEnv{codec: c1, binding: testBinding, valid: map[string][]byte{}}
	for _, v := range []struct {
		c  *Codec
		pt string
	}{{c1, string(plaintext51)}, {c1, ""}, {c2, "sealed under the second key"}} {
		e.valid[mustSeal(t, v.c, e.binding, time.Hour, []byte(v.pt))] = []byte(v.pt)
	}
	other := testBinding
	other.Principal = "user:mallory@example.com"
	expired := mustSeal(t, past, e.binding, time.Minute, plaintext51)
	e.expired = map[string][]byte{expired: plaintext51}
	e.invalid = append(e.invalid, mustSeal(t, c1, other, time.Hour, plaintext51), expired)
	return e
}

// expectedReason classifies s the way Open must, for every check that does
// not need a key: an oracle written independently of Open's code. It
// returns 0 for "reaches authentication".
func (e *fuzzEnv) expectedReason(s string) Reason {
	if len(s) > fuzzMaxLen {
		return TooLong
	}
	if strings.ContainsAny(s, "\r\n") {
		return NotCanonical
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return NotCanonical
	}
	if len(raw) < 41 {
		return Truncated
	}
	if raw[0] != 1 {
		return UnknownVersion
	}
	if kid := binary.BigEndian.Uint32(raw[1:5]); kid != 1 && kid != 0xfffffffe {
		return UnknownKey
	}
	return 0
}

func FuzzOpen(f *testing.F) {
	e := newFuzzEnv(f)
	for tok := range e.valid {
		f.Add(tok)
		f.Add(tok[:len(tok)-1])
		f.Add(tok + "A")
		f.Add(tok[:50] + "\n" + tok[50:])
	}
	for _, tok := range e.invalid {
		f.Add(tok)
	}
	f.Add("")
	f.Add("AQ")
	f.Add(strings.Repeat("A", fuzzMaxLen+1))
	f.Fuzz(func(t *testing.T, s string) {
		pt, err := e.codec.Open(e.binding, s)
		want, isValid := e.valid[s]
		if err == nil {
			if !isValid {
				t.Fatalf("Open accepted a token that was never sealed for this binding: %q", s)
			}
			if !bytes.Equal(pt, want) {
				t.Fatalf("Open(%q) = %q, want %q", s, pt, want)
			}
			return
		}
		if isValid {
			t.Fatalf("valid token rejected: %v", err)
		}
		var se *Error
		if !errors.Is(err, ErrInvalid) || !errors.As(err, &se) {
			t.Fatalf("error %v is not an *Error matching ErrInvalid", err)
		}
		// Only an authentic, expired token gives its plaintext back (for
		// looking up what it already did), and then exactly what was sealed.
		if exp, ok := e.expired[s]; pt != nil && (se.Reason != Expired || !ok || !bytes.Equal(pt, exp)) {
			t.Fatalf("failed Open (%v) returned plaintext %q", se.Reason, pt)
		}
		switch exp := e.expectedReason(s); {
		case exp != 0 && se.Reason != exp:
			t.Fatalf("reason %v, oracle says %v (%q)", se.Reason, exp, s)
		case exp == 0 && se.Reason != Forged && se.Reason != Expired:
			t.Fatalf("reason %v after the structural checks (%q)", se.Reason, s)
		}
	})
}

func FuzzSealOpenRoundTrip(f *testing.F) {
	ring := mustRing(f, Key{ID: 3, Secret: secretOf(0x33)})
	c := New(ring, Options{Now: func() time.Time { return t0 }, MaxTokenLen: fuzzMaxLen, Rand: detRand(7)})
	f.Add(testBinding.Audience, testBinding.Subject, testBinding.Principal, testBinding.ArgsDigest[:], plaintext51, uint32(600), uint32(0))
	f.Add("", "", "", []byte{}, []byte{}, uint32(0), uint32(1))
	f.Add("a", "b", "", []byte{1}, []byte("x"), uint32(1), uint32(1000))
	f.Add("srv", "prompts/get:p", "\x00", bytes.Repeat([]byte{0xff}, 40), make([]byte, 1000), uint32(1<<20), uint32(7))
	f.Fuzz(func(t *testing.T, aud, subj, principal string, digest, pt []byte, ttlSec, flip uint32) {
		b := Binding{Audience: aud, Subject: subj, Principal: principal}
		copy(b.ArgsDigest[:], digest)
		ttl := time.Duration(ttlSec%(1<<20)+1) * time.Second

		tok, err := c.Seal(b, ttl, pt)
		if len(pt) > c.MaxPlaintextLen() {
			if err == nil {
				t.Fatalf("Seal of %d bytes succeeded over the cap", len(pt))
			}
			return
		}
		if err != nil {
			t.Fatalf("Seal: %v", err)
		}
		if len(tok) != TokenLen(len(pt)) || len(tok) > fuzzMaxLen {
			t.Fatalf("token length %d for %d bytes", len(tok), len(pt))
		}
		got, err := c.Open(b, tok)
		if err != nil || !bytes.Equal(got, pt) {
			t.Fatalf("Open = %q, %v", got, err)
		}

		// Any change of the binding is forged.
		changes := []Binding{b, b, b, b, b}
		changes[0].Audience += "\x00"
		changes[1].Subject = "x" + changes[1].Subject
		changes[2].Principal += "p"
		changes[3].ArgsDigest[flip%32] ^= 1 << (flip % 8)
		changes[4].Audience, changes[4].Subject = changes[4].Subject, changes[4].Audience
		for i, cb := range changes {
			if cb == b {
				continue // e.g. swapping two equal fields
			}
			if _, err := c.Open(cb, tok); reasonOf(t, err) != Forged {
				t.Fatalf("change %d: %v, want forged", i, err)
			}
		}

		// Any single bit flip is rejected.
		raw, _ := b64.DecodeString(tok)
		bit := int(flip % uint32(len(raw)*8))
		raw[bit/8] ^= 1 << (bit % 8)
		if _, err := c.Open(b, b64.EncodeToString(raw)); err == nil {
			t.Fatalf("bit %d flipped, token still opens", bit)
		}

		// Expiry: accepted at exp+skew, rejected one second later.
		exp := t0.Add(ttl)
		at := func(tm time.Time) *Codec {
			return New(ring, Options{Now: func() time.Time { return tm }, MaxTokenLen: fuzzMaxLen})
		}
		if _, err := at(exp.Add(DefaultSkew)).Open(b, tok); err != nil {
			t.Fatalf("at exp+skew: %v", err)
		}
		if _, err := at(exp.Add(DefaultSkew+time.Second)).Open(b, tok); reasonOf(t, err) != Expired {
			t.Fatalf("at exp+skew+1s: %v, want expired", err)
		}
	})
}

// TestFuzzCorpusSeeds keeps the committed seed corpus honest: the file
// "valid" must hold a token that FuzzOpen's setup accepts, so the fuzzer
// starts from the accepting path.
func TestFuzzCorpusSeeds(t *testing.T) {
	e := newFuzzEnv(t)
	dir := filepath.Join("testdata", "fuzz", "FuzzOpen")
	if os.Getenv("SEAL_WRITE_FUZZ_CORPUS") != "" {
		writeFuzzCorpus(t, e, dir)
	}
	b, err := os.ReadFile(filepath.Join(dir, "valid"))
	if err != nil {
		t.Fatal(err)
	}
	s := corpusString(t, b)
	if _, ok := e.valid[s]; !ok {
		t.Fatalf("testdata seed %q is not a valid token of FuzzOpen's setup; regenerate with SEAL_WRITE_FUZZ_CORPUS=1", s)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) < 10 {
		t.Fatalf("corpus has %d entries, %v", len(entries), err)
	}
	for _, de := range entries {
		b, err := os.ReadFile(filepath.Join(dir, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		corpusString(t, b)
	}
}

func corpusString(t *testing.T, file []byte) string {
	t.Helper()
	header, body, ok := strings.Cut(string(file), "\n")
	if !ok || header != "go test fuzz v1" {
		t.Fatalf("bad corpus file %q", file)
	}
	body = strings.TrimSpace(body)
	if !strings.HasPrefix(body, "string(") || !strings.HasSuffix(body, ")") {
		t.Fatalf("bad corpus entry %q", body)
	}
	s, err := strconv.Unquote(body[len("string(") : len(body)-1])
	if err != nil {
		t.Fatalf("bad corpus entry %q: %v", body, err)
	}
	return s
}

// writeFuzzCorpus regenerates testdata/fuzz/FuzzOpen (run the tests with
// SEAL_WRITE_FUZZ_CORPUS=1 after a deliberate format change).
func writeFuzzCorpus(t *testing.T, e *fuzzEnv, dir string) {
	var valid string
	for tok, pt := range e.valid {
		if bytes.Equal(pt, plaintext51) {
			valid = tok
		}
	}
	raw, _ := b64.DecodeString(valid)
	flipped := bytes.Clone(raw)
	flipped[30] ^= 4
	seeds := map[string]string{
		"valid":          valid,
		"other-binding":  e.invalid[0],
		"expired":        e.invalid[1],
		"truncated":      valid[:len(valid)-2],
		"header-only":    b64.EncodeToString(raw[:HeaderLen+NonceLen]),
		"appended":       valid + "AAAA",
		"crlf":           valid[:40] + "\r\n" + valid[40:],
		"padded":         base64.URLEncoding.EncodeToString(raw),
		"std-alphabet":   base64.RawStdEncoding.EncodeToString(raw),
		"bit-flipped":    b64.EncodeToString(flipped),
		"bad-version":    "Ag" + valid[2:],
		"empty":          "",
		"over-cap":       strings.Repeat("A", fuzzMaxLen+1),
		"trailing-bits":  valid[:len(valid)-1] + "B",
		"space-inserted": valid[:10] + " " + valid[10:],
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, s := range seeds {
		body := "go test fuzz v1\nstring(" + strconv.Quote(s) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
