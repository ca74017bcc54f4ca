package seal

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRoundTrip(t *testing.T) {
	c, _ := testCodec(t, mustRing(t, Key{ID: 7, Secret: secretOf(1)}))
	for _, n := range []int{0, 1, 15, 16, 17, 51, 1000, 4000} {
		pt := bytes.Repeat([]byte{byte(n)}, n)
		tok := mustSeal(t, c, testBinding, time.Minute, pt)
		if len(tok) != TokenLen(n) {
			t.Errorf("n=%d: token length %d, want TokenLen = %d", n, len(tok), TokenLen(n))
		}
		if strings.Trim(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			t.Errorf("n=%d: token has characters outside base64url: %q", n, tok)
		}
		mustOpen(t, c, testBinding, tok, pt)
	}
	if ToolSubject("t") != "tools/call:t" || PromptSubject("p") != "prompts/get:p" {
		t.Error("subject helpers")
	}
	if got := TokenLen(51); got != 123 {
		t.Errorf("TokenLen(51) = %d, want 123 (41 bytes overhead)", got)
	}
}

func TestSealUsesFreshNonces(t *testing.T) {
	c := New(mustRing(t, Key{ID: 1, Secret: secretOf(1)}), Options{}) // crypto/rand
	seen := map[string]bool{}
	for range 100 {
		tok := mustSeal(t, c, testBinding, time.Minute, plaintext51)
		raw, _ := b64.DecodeString(tok)
		nonce := string(raw[HeaderLen : HeaderLen+NonceLen])
		if seen[nonce] {
			t.Fatal("nonce repeated")
		}
		seen[nonce] = true
		mustOpen(t, c, testBinding, tok, plaintext51)
	}
}

func TestOpenedPlaintextIsACopy(t *testing.T) {
	c, _ := testCodec(t, mustRing(t, Key{ID: 1, Secret: secretOf(1)}))
	pt := []byte("state")
	tok := mustSeal(t, c, testBinding, time.Minute, pt)
	pt[0] = 'X'
	got, err := c.Open(testBinding, tok)
	if err != nil || string(got) != "state" {
		t.Fatalf("Open = %q, %v; Seal must not retain the caller's plaintext", got, err)
	}
	got[0] = 'Y'
	mustOpen(t, c, testBinding, tok, []byte("state"))
}

func TestBindingFieldChanges(t *testing.T) {
	c, _ := testCodec(t, mustRing(t, Key{ID: 1, Secret: secretOf(1)}))
	tok := mustSeal(t, c, testBinding, time.Minute, plaintext51)
	mustOpen(t, c, testBinding, tok, plaintext51)

	type mod struct {
		name string
		f    func(*Binding)
	}
	mods := []mod{
		{"audience", func(b *Binding) { b.Audience = "other-server" }},
		{"audience empty", func(b *Binding) { b.Audience = "" }},
		{"audience case", func(b *Binding) { b.Audience = strings.ToUpper(b.Audience) }},
		{"audience trailing NUL", func(b *Binding) { b.Audience += "\x00" }},
		{"subject other tool", func(b *Binding) { b.Subject = "tools/call:delete_ticket" }},
		{"subject prompt", func(b *Binding) { b.Subject = "prompts/get:create_ticket" }},
		{"principal other user", func(b *Binding) { b.Principal = "user:mallory@example.com" }},
		{"principal empty", func(b *Binding) { b.Principal = "" }},
		{"args digest zero", func(b *Binding) { b.ArgsDigest = [32]byte{} }},
		// Moving bytes between adjacent fields keeps the concatenation the
		// same; the length prefixes must tell them apart.
		{"audience→subject shift", func(b *Binding) {
			b.Audience, b.Subject = b.Audience[:len(b.Audience)-1], b.Audience[len(b.Audience)-1:]+b.Subject
		}},
		{"subject→principal shift", func(b *Binding) {
			b.Subject, b.Principal = b.Subject+b.Principal[:1], b.Principal[1:]
		}},
		{"swap audience and subject", func(b *Binding) { b.Audience, b.Subject = b.Subject, b.Audience }},
	}
	for i := range 32 * 8 {
		mods = append(mods, mod{fmt.Sprintf("args digest bit %d", i), func(b *Binding) { b.ArgsDigest[i/8] ^= 1 << (i % 8) }})
	}
	for _, m := range mods {
		b := testBinding
		m.f(&b)
		if b == testBinding {
			t.Fatalf("%s: modification changed nothing", m.name)
		}
		if r := openFails(t, c, b, tok, m.name); r != Forged {
			t.Errorf("%s: reason %v, want forged", m.name, r)
		}
	}
}

func TestEmptyBindingFieldsAreDistinct(t *testing.T) {
	// Tokens sealed with empty fields open only with exactly those fields.
	c, _ := testCodec(t, mustRing(t, Key{ID: 1, Secret: secretOf(1)}))
	bs := []Binding{
		{},
		{Audience: "a"},
		{Subject: "a"},
		{Principal: "a"},
		{Audience: "a", Subject: "a"},
		{Subject: "a", Principal: "a"},
		{Audience: "ab", Subject: "c"},
		{Audience: "a", Subject: "bc"},
		{Principal: "\x00\x00\x00\x01a"},
	}
	for i, bi := range bs {
		tok := mustSeal(t, c, bi, time.Minute, []byte("x"))
		for j, bj := range bs {
			_, err := c.Open(bj, tok)
			if (err == nil) != (i == j) {
				t.Errorf("sealed with %+v, opened with %+v: err = %v", bi, bj, err)
			}
		}
	}
}

func TestWrongKey(t *testing.T) {
	c, _ := testCodec(t, mustRing(t, Key{ID: 1, Secret: secretOf(1)}))
	tok := mustSeal(t, c, testBinding, time.Minute, plaintext51)

	// Same id, other secret: authentication fails.
	other, _ := testCodec(t, mustRing(t, Key{ID: 1, Secret: secretOf(2)}))
	if r := openFails(t, other, testBinding, tok, "same id, other secret"); r != Forged {
		t.Errorf("same id, other secret: reason %v, want forged", r)
	}
	// A ring without the id.
	missing, _ := testCodec(t, mustRing(t, Key{ID: 2, Secret: secretOf(1)}, Key{ID: 3, Secret: secretOf(3)}))
	if r := openFails(t, missing, testBinding, tok, "ring without kid"); r != UnknownKey {
		t.Errorf("ring without kid: reason %v, want unknown_key", r)
	}
	// A secret that differs in one bit only.
	s := secretOf(1)
	s[31] ^= 1
	near, _ := testCodec(t, mustRing(t, Key{ID: 1, Secret: s}))
	if r := openFails(t, near, testBinding, tok, "one-bit-off secret"); r != Forged {
		t.Errorf("one-bit-off secret: reason %v, want forged", r)
	}
}

func TestRotation(t *testing.T) {
	oldK := Key{ID: 1, Secret: secretOf(0x11)}
	newK := Key{ID: 2, Secret: secretOf(0x22)}
	clk := &clock{t: t0}
	codec := func(keys ...Key) *Codec {
		return New(mustRing(t, keys...), Options{Now: clk.now, Rand: detRand(9)})
	}

	before := codec(oldK)
	tokOld := mustSeal(t, before, testBinding, time.Hour, []byte("old"))

	// Phase 1: new key added everywhere as open-only; old still seals.
	phase1 := codec(oldK, newK)
	mustOpen(t, phase1, testBinding, tokOld, []byte("old"))
	tok1 := mustSeal(t, phase1, testBinding, time.Hour, []byte("p1"))
	mustOpen(t, before, testBinding, tok1, []byte("p1")) // un-upgraded instance still opens it
	if got := sealKid(t, tok1); got != 1 {
		t.Fatalf("phase 1 sealed with kid %d, want 1", got)
	}

	// Phase 2: new key promoted.
	phase2 := codec(newK, oldK)
	if phase2.ring.SealingKeyID() != 2 {
		t.Fatal("phase 2 does not seal with key 2")
	}
	mustOpen(t, phase2, testBinding, tokOld, []byte("old"))
	mustOpen(t, phase2, testBinding, tok1, []byte("p1"))
	tokNew := mustSeal(t, phase2, testBinding, time.Hour, []byte("new"))
	if got := sealKid(t, tokNew); got != 2 {
		t.Fatalf("phase 2 sealed with kid %d, want 2", got)
	}
	mustOpen(t, phase1, testBinding, tokNew, []byte("new")) // instance still in phase 1

	// Phase 3: old key retired.
	clk.t = clk.t.Add(time.Hour)
	phase3 := codec(newK)
	mustOpen(t, phase3, testBinding, tokNew, []byte("new"))
	if r := openFails(t, phase3, testBinding, tokOld, "retired key"); r != UnknownKey {
		t.Errorf("retired key: reason %v, want unknown_key", r)
	}
	if r := openFails(t, before, testBinding, tokNew, "instance that never got the new key"); r != UnknownKey {
		t.Errorf("instance without new key: reason %v, want unknown_key", r)
	}
}

func sealKid(t *testing.T, tok string) uint32 {
	t.Helper()
	raw, err := b64.DecodeString(tok)
	if err != nil {
		t.Fatal(err)
	}
	return binary.BigEndian.Uint32(raw[1:5])
}

func TestExpiry(t *testing.T) {
	c, clk := testCodec(t, mustRing(t, Key{ID: 1, Secret: secretOf(1)}))
	const ttl = 10 * time.Minute
	tok := mustSeal(t, c, testBinding, ttl, plaintext51)
	raw, _ := b64.DecodeString(tok)
	exp := time.Unix(int64(binary.BigEndian.Uint64(raw[5:13])), 0)
	if !exp.Equal(t0.Add(ttl)) {
		t.Fatalf("exp = %v, want %v", exp, t0.Add(ttl))
	}
	cases := []struct {
		at time.Time
		ok bool
	}{
		{t0, true},
		{exp.Add(-time.Second), true},
		{exp, true},
		{exp.Add(DefaultSkew), true},
		{exp.Add(DefaultSkew + time.Nanosecond), false},
		{exp.Add(DefaultSkew + time.Second), false},
		{exp.Add(24 * time.Hour), false},
		{t0.Add(-time.Hour), true}, // a clock behind the sealer's is fine
	}
	for _, tc := range cases {
		clk.t = tc.at
		pt, err := c.Open(testBinding, tok)
		switch {
		case tc.ok && err != nil:
			t.Errorf("at exp%+v: %v, want accepted", tc.at.Sub(exp), err)
		case tc.ok && !bytes.Equal(pt, plaintext51):
			t.Errorf("at exp%+v: wrong plaintext", tc.at.Sub(exp))
		case !tc.ok:
			if r := reasonOf(t, err); r != Expired {
				t.Errorf("at exp%+v: reason %v, want expired", tc.at.Sub(exp), r)
			}
			if !bytes.Equal(pt, plaintext51) {
				t.Errorf("at exp%+v: expired Open returned %q, want the authentic plaintext for record lookups", tc.at.Sub(exp), pt)
			}
		}
	}
}

func TestExpiryCustomSkew(t *testing.T) {
	ring := mustRing(t, Key{ID: 1, Secret: secretOf(1)})
	clk := &clock{t: t0}
	for _, tc := range []struct {
		skew, effective time.Duration
	}{{0, DefaultSkew}, {5 * time.Second, 5 * time.Second}, {-1, 0}} {
		c := New(ring, Options{Now: clk.now, Skew: tc.skew})
		clk.t = t0
		tok := mustSeal(t, c, testBinding, time.Minute, nil)
		exp := t0.Add(time.Minute)
		clk.t = exp.Add(tc.effective)
		if _, err := c.Open(testBinding, tok); err != nil {
			t.Errorf("skew %v: at exp+%v: %v", tc.skew, tc.effective, err)
		}
		clk.t = exp.Add(tc.effective + time.Second)
		if _, err := c.Open(testBinding, tok); reasonOf(t, err) != Expired {
			t.Errorf("skew %v: at exp+%v+1s: %v, want expired", tc.skew, tc.effective, err)
		}
	}
}

// WithSkew widens the tolerance (never narrows it) and keeps keys and
// clock; an Expired error carries the token's expiry.
func TestWithSkew(t *testing.T) {
	ring := mustRing(t, Key{ID: 1, Secret: secretOf(1)})
	clk := &clock{t: t0}
	c := New(ring, Options{Now: clk.now})
	tok := mustSeal(t, c, testBinding, time.Minute, plaintext51)
	exp := t0.Add(time.Minute)
	wide := c.WithSkew(2 * time.Minute)
	if got := c.WithSkew(time.Second).Skew(); got != DefaultSkew {
		t.Errorf("WithSkew(1s) of a %v codec: skew %v, want it kept", DefaultSkew, got)
	}
	if got := New(ring, Options{Now: clk.now, Skew: -1}).WithSkew(0).Skew(); got != 0 {
		t.Errorf("WithSkew(0) of a codec without tolerance: skew %v, want 0", got)
	}
	clk.t = exp.Add(2 * time.Minute)
	if !wide.Now().Equal(clk.t) {
		t.Errorf("Now %v, want the codec's clock %v", wide.Now(), clk.t)
	}
	if _, err := wide.Open(testBinding, tok); err != nil {
		t.Errorf("at exp+2m with a 2m skew: %v", err)
	}
	pt, err := c.Open(testBinding, tok)
	var se *Error
	if !errors.As(err, &se) || se.Reason != Expired || !se.Expiry.Equal(exp) || !bytes.Equal(pt, plaintext51) {
		t.Fatalf("at exp+2m with the default skew: %v (%+v), want Expired at %v with the plaintext", err, se, exp)
	}
	clk.t = exp.Add(2*time.Minute + time.Second)
	if _, err := wide.Open(testBinding, tok); reasonOf(t, err) != Expired {
		t.Errorf("at exp+2m1s with a 2m skew: %v, want expired", err)
	}
}

func TestExpiryRoundsUp(t *testing.T) {
	clk := &clock{t: t0.Add(500 * time.Millisecond)}
	c := New(mustRing(t, Key{ID: 1, Secret: secretOf(1)}), Options{Now: clk.now, Skew: -1})
	tok := mustSeal(t, c, testBinding, time.Second, nil)
	raw, _ := b64.DecodeString(tok)
	if got, want := int64(binary.BigEndian.Uint64(raw[5:13])), t0.Unix()+2; got != want {
		t.Fatalf("exp = %d, want %d (now+ttl rounded up)", got, want)
	}
	clk.t = t0.Add(2 * time.Second)
	if _, err := c.Open(testBinding, tok); err != nil {
		t.Fatalf("at exp: %v", err)
	}
}

func TestLengthCap(t *testing.T) {
	c, _ := testCodec(t, mustRing(t, Key{ID: 1, Secret: secretOf(1)}))
	// Garbage just over the cap is TooLong, not NotCanonical: the cap is
	// checked before any decoding.
	for _, s := range []string{strings.Repeat("A", DefaultMaxTokenLen+1), strings.Repeat("!", DefaultMaxTokenLen+1), strings.Repeat("\n", 1<<20)} {
		if r := openFails(t, c, testBinding, s, "over cap"); r != TooLong {
			t.Errorf("len %d: reason %v, want too_long", len(s), r)
		}
	}
	if r := openFails(t, c, testBinding, strings.Repeat("!", DefaultMaxTokenLen), "at cap"); r != NotCanonical {
		t.Errorf("garbage at the cap: reason %v, want not_canonical", r)
	}

	// A valid token under a smaller cap.
	tok := mustSeal(t, c, testBinding, time.Minute, plaintext51)
	for _, max := range []int{len(tok), len(tok) + 1} {
		small := New(c.ring, Options{Now: c.now, MaxTokenLen: max})
		mustOpen(t, small, testBinding, tok, plaintext51)
	}
	small := New(c.ring, Options{Now: c.now, MaxTokenLen: len(tok) - 1})
	if r := openFails(t, small, testBinding, tok, "cap-1"); r != TooLong {
		t.Errorf("cap = len-1: reason %v, want too_long", r)
	}

	// Seal refuses what Open would refuse.
	for _, max := range []int{54, 55, 56, 57, 58, 123, 124, 125, 126, DefaultMaxTokenLen} {
		cc := New(c.ring, Options{Now: c.now, MaxTokenLen: max})
		n := cc.MaxPlaintextLen()
		if n >= 0 {
			tok := mustSeal(t, cc, testBinding, time.Minute, make([]byte, n))
			if len(tok) > max {
				t.Errorf("max %d: token of MaxPlaintextLen %d is %d long", max, n, len(tok))
			}
			mustOpen(t, cc, testBinding, tok, make([]byte, n))
		}
		if _, err := cc.Seal(testBinding, time.Minute, make([]byte, n+1)); err == nil {
			t.Errorf("max %d: Seal of %d bytes (MaxPlaintextLen+1) succeeded", max, n+1)
		}
	}
	if got := c.MaxPlaintextLen(); got != 6144-41 {
		t.Errorf("default MaxPlaintextLen = %d, want %d", got, 6144-41)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("entropy source broken") }

func TestSealErrors(t *testing.T) {
	ring := mustRing(t, Key{ID: 1, Secret: secretOf(1)})
	c := New(ring, Options{Now: func() time.Time { return t0 }})
	for _, ttl := range []time.Duration{0, -time.Second} {
		if _, err := c.Seal(testBinding, ttl, nil); err == nil {
			t.Errorf("ttl %v: Seal succeeded", ttl)
		}
	}
	for _, r := range []io.Reader{errReader{}, bytes.NewReader(make([]byte, 11)), strings.NewReader("")} {
		bad := New(ring, Options{Rand: r})
		if tok, err := bad.Seal(testBinding, time.Minute, nil); err == nil {
			t.Errorf("failing nonce source %T: Seal = %q, want error", r, tok)
		}
	}
	before1970 := New(ring, Options{Now: func() time.Time { return time.Unix(-100, 0) }})
	if _, err := before1970.Seal(testBinding, time.Second, nil); err == nil {
		t.Error("Seal with an expiry before 1970 succeeded")
	}
}

func TestNewWithoutRingPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New(nil, ...) did not panic")
		}
	}()
	New(nil, Options{})
}

func TestErrorOpacity(t *testing.T) {
	ring := mustRing(t, Key{ID: 1, Secret: secretOf(1)})
	c, clk := testCodec(t, ring)
	tok := mustSeal(t, c, testBinding, time.Minute, plaintext51)
	raw, _ := b64.DecodeString(tok)
	enc := func(f func([]byte)) string {
		r := bytes.Clone(raw)
		f(r)
		return b64.EncodeToString(r)
	}
	otherKid := enc(func(r []byte) { r[4] = 9 })
	cases := []struct {
		name  string
		b     Binding
		tok   string
		at    time.Time
		want  Reason
		label string
	}{
		{"too long", testBinding, strings.Repeat("A", DefaultMaxTokenLen+1), t0, TooLong, "too_long"},
		{"bad char", testBinding, tok[:10] + "*" + tok[11:], t0, NotCanonical, "not_canonical"},
		{"newline", testBinding, tok[:10] + "\n" + tok[10:], t0, NotCanonical, "not_canonical"},
		{"empty", testBinding, "", t0, Truncated, "truncated"},
		{"short", testBinding, tok[:52], t0, Truncated, "truncated"},
		{"version", testBinding, enc(func(r []byte) { r[0] = 2 }), t0, UnknownVersion, "unknown_version"},
		{"kid", testBinding, otherKid, t0, UnknownKey, "unknown_key"},
		{"tag", testBinding, enc(func(r []byte) { r[len(r)-1] ^= 0x80 }), t0, Forged, "forged"},
		{"binding", Binding{Audience: "x"}, tok, t0, Forged, "forged"},
		{"expired", testBinding, tok, t0.Add(time.Hour), Expired, "expired"},
		// Authentication comes before expiry: a forged, expired token is forged.
		{"forged and expired", Binding{}, tok, t0.Add(time.Hour), Forged, "forged"},
	}
	for _, tc := range cases {
		clk.t = tc.at
		pt, err := c.Open(tc.b, tc.tok)
		// Only an authentic, expired token gives its plaintext back.
		if pt != nil && tc.want != Expired {
			t.Errorf("%s: plaintext returned with error", tc.name)
		}
		if tc.want == Expired && pt == nil {
			t.Errorf("%s: an authentic expired token returned no plaintext", tc.name)
		}
		if r := reasonOf(t, err); r != tc.want {
			t.Errorf("%s: reason %v, want %v (%v)", tc.name, r, tc.want, err)
		}
		if r := reasonOf(t, err); r.String() != tc.label {
			t.Errorf("%s: label %q, want %q", tc.name, r.String(), tc.label)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "seal: invalid requestState: "+tc.label) {
			t.Errorf("%s: message %q", tc.name, msg)
		}
		// Logs must not receive binding values or plaintext.
		for _, secret := range []string{testBinding.Principal, testBinding.Audience, string(plaintext51), "alice"} {
			if strings.Contains(msg, secret) {
				t.Errorf("%s: error text %q leaks %q", tc.name, msg, secret)
			}
		}
	}
	if !strings.Contains(PublicMessage, "requestState") || strings.ContainsAny(PublicMessage, "%\n") {
		t.Errorf("PublicMessage = %q", PublicMessage)
	}
	if got := Reason(0).String(); got != "reason(0)" {
		t.Errorf("Reason(0).String() = %q", got)
	}
}

func TestConcurrentUse(t *testing.T) {
	ring := mustRing(t, Key{ID: 1, Secret: secretOf(1)}, Key{ID: 2, Secret: secretOf(2)})
	for _, c := range []*Codec{New(ring, Options{}), New(ring, Options{Rand: detRand(3)})} {
		var wg sync.WaitGroup
		tokens := make([][]string, 4)
		for g := range 4 {
			wg.Go(func() {
				for i := range 200 {
					pt := fmt.Appendf(nil, "g%d-i%d", g, i)
					tok, err := c.Seal(testBinding, time.Minute, pt)
					if err != nil {
						t.Error(err)
						return
					}
					tokens[g] = append(tokens[g], tok)
					got, err := c.Open(testBinding, tok)
					if err != nil || !bytes.Equal(got, pt) {
						t.Errorf("Open = %q, %v", got, err)
						return
					}
				}
			})
		}
		wg.Wait()
		seen := map[string]bool{}
		for _, ts := range tokens {
			for _, tok := range ts {
				if seen[tok] {
					t.Fatal("duplicate token under concurrent sealing")
				}
				seen[tok] = true
			}
		}
	}
}

// canonical is asked of a token and what the strict decoder made of it:
// every variant of an encoding that still decodes (line breaks anywhere)
// must be refused, and the encoding itself accepted. Changed characters
// decode to other bytes (or not at all); Open's AEAD refuses those.
func TestCanonical(t *testing.T) {
	accepts := func(tok string) bool {
		raw, err := b64.DecodeString(tok)
		return err == nil && canonical(tok, raw)
	}
	for n := range 200 {
		raw := make([]byte, n)
		for i := range raw {
			raw[i] = byte(i*7 + n)
		}
		s := base64.RawURLEncoding.EncodeToString(raw)
		if !accepts(s) {
			t.Fatalf("n=%d: the encoding itself is refused", n)
		}
		for i := 0; i <= len(s); i++ {
			for _, brk := range []string{"\n", "\r", "\r\n", "\n\n"} {
				if v := s[:i] + brk + s[i:]; accepts(v) {
					t.Fatalf("n=%d: a line break at %d was accepted: %q", n, i, v)
				}
			}
		}
		if n > 0 {
			bad := []byte(s)
			bad[len(bad)-1] ^= 1
			if raw2, err := b64.DecodeString(string(bad)); err == nil && bytes.Equal(raw2, raw) {
				t.Fatalf("n=%d: a changed last char decoded to the same bytes", n)
			}
		}
	}
}
