package seal

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"
)

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// victim returns a codec over a single-key ring and a valid token for
// testBinding and plaintext51 (123 characters, 92 bytes).
func victim(t *testing.T) (*Codec, string, []byte) {
	t.Helper()
	c, _ := testCodec(t, mustRing(t, Key{ID: 0x01020304, Secret: secretOf(1)}))
	tok := mustSeal(t, c, testBinding, time.Hour, plaintext51)
	mustOpen(t, c, testBinding, tok, plaintext51)
	raw, err := b64.DecodeString(tok)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != Overhead+len(plaintext51) || len(tok) != 123 {
		t.Fatalf("token is %d bytes / %d chars", len(raw), len(tok))
	}
	return c, tok, raw
}

func TestEveryBitFlip(t *testing.T) {
	c, _, raw := victim(t)
	// A ring that also knows a key whose id is one bit away from the
	// sealing key's: flips there reach AEAD and must fail it.
	c2, _ := testCodec(t, mustRing(t, Key{ID: 0x01020304, Secret: secretOf(1)}, Key{ID: 0x01020305, Secret: secretOf(1)}))
	n := 0
	for i := range raw {
		for bit := range 8 {
			r := bytes.Clone(raw)
			r[i] ^= 1 << bit
			tok := b64.EncodeToString(r)
			what := fmt.Sprintf("byte %d bit %d", i, bit)
			got := openFails(t, c, testBinding, tok, what)
			var want Reason
			switch {
			case i == 0:
				want = UnknownVersion
			case i < 5:
				want = UnknownKey
			default: // exp, nonce, ciphertext, tag: authentication, never "expired"
				want = Forged
			}
			if got != want {
				t.Errorf("%s: reason %v, want %v", what, got, want)
			}
			if i > 0 {
				wantReason(t, func() error { _, err := c2.Open(testBinding, tok); return err }(), what+" (two-key ring)", UnknownKey, Forged)
			}
			n++
		}
	}
	if n != 92*8 {
		t.Fatalf("tested %d flips", n)
	}
}

func TestEveryCharSubstitution(t *testing.T) {
	c, tok, _ := victim(t)
	extra := []string{"+", "/", "=", " ", "\t", "\n", "\r", ".", "~", "\x00", "\x7f", "é", "\uFEFF", "%2D"}
	n := 0
	for i := range len(tok) {
		var subs []string
		for _, ch := range alphabet {
			if byte(ch) != tok[i] {
				subs = append(subs, string(ch))
			}
		}
		subs = append(subs, extra...)
		for _, s := range subs {
			mut := tok[:i] + s + tok[i+1:]
			what := fmt.Sprintf("position %d := %q", i, s)
			r := openFails(t, c, testBinding, mut, what)
			switch {
			case !strings.Contains(alphabet, s):
				if r != NotCanonical {
					t.Errorf("%s: reason %v, want not_canonical", what, r)
				}
			case i == len(tok)-1:
				// The last character carries 4 bits of data and 2 padding
				// bits: a change is either forged data or non-zero padding.
				reasonIn(t, r, what, NotCanonical, Forged)
			case i == 0: // 6 bits of the version byte
				reasonIn(t, r, what, UnknownVersion)
			case i == 1: // 2 bits of version, 4 of kid
				reasonIn(t, r, what, UnknownVersion, UnknownKey)
			case i < 6: // kid only
				reasonIn(t, r, what, UnknownKey)
			case i == 6: // 4 bits of kid, 2 of exp
				reasonIn(t, r, what, UnknownKey, Forged)
			default:
				reasonIn(t, r, what, Forged)
			}
			n++
		}
	}
	t.Logf("%d substitutions rejected", n)
}

func TestEveryTruncation(t *testing.T) {
	c, tok, raw := victim(t)
	// Every prefix and every suffix of the encoded string.
	for n := range len(tok) {
		wantReason(t, errOf(c.Open(testBinding, tok[:n])), fmt.Sprintf("prefix %d", n), NotCanonical, Truncated, Forged)
		wantReason(t, errOf(c.Open(testBinding, tok[len(tok)-n:])), fmt.Sprintf("suffix %d", n), NotCanonical, Truncated, UnknownVersion, UnknownKey, Forged)
	}
	// Every prefix of the decoded bytes, re-encoded canonically.
	for n := range len(raw) {
		want := Forged
		if n < Overhead {
			want = Truncated
		}
		if r := openFails(t, c, testBinding, b64.EncodeToString(raw[:n]), fmt.Sprintf("raw prefix %d", n)); r != want {
			t.Errorf("raw prefix %d: reason %v, want %v", n, r, want)
		}
	}
	// Dropping the middle: header and tag intact, ciphertext shortened.
	for cut := 1; cut <= len(plaintext51); cut++ {
		r := append(bytes.Clone(raw[:HeaderLen+NonceLen]), raw[HeaderLen+NonceLen+cut:]...)
		if got := openFails(t, c, testBinding, b64.EncodeToString(r), "ciphertext cut"); got != Forged {
			t.Errorf("ciphertext cut by %d: reason %v, want forged", cut, got)
		}
	}
}

func errOf(_ []byte, err error) error { return err }

func TestAppended(t *testing.T) {
	c, tok, raw := victim(t)
	for b := range 256 {
		r := append(bytes.Clone(raw), byte(b))
		if got := openFails(t, c, testBinding, b64.EncodeToString(r), "appended byte"); got != Forged {
			t.Errorf("appended byte %#x: reason %v, want forged", b, got)
		}
	}
	r := append(bytes.Clone(raw), raw...)
	if got := openFails(t, c, testBinding, b64.EncodeToString(r), "doubled"); got != Forged {
		t.Errorf("token bytes doubled: reason %v, want forged", got)
	}
	for _, ch := range alphabet {
		for _, s := range []string{string(ch), strings.Repeat(string(ch), 2), strings.Repeat(string(ch), 3), strings.Repeat(string(ch), 4)} {
			wantReason(t, errOf(c.Open(testBinding, tok+s)), "appended "+s, NotCanonical, Forged)
			wantReason(t, errOf(c.Open(testBinding, s+tok)), "prepended "+s, NotCanonical, UnknownVersion)
		}
	}
	wantReason(t, errOf(c.Open(testBinding, tok+tok)), "token twice", NotCanonical, Forged)
	wantReason(t, errOf(c.Open(testBinding, tok+"."+tok)), "dot-joined", NotCanonical)
}

func TestWhitespaceInsertion(t *testing.T) {
	c, tok, _ := victim(t)
	// The premise: Go's strict decoder alone accepts CR and LF anywhere.
	if _, err := base64.RawURLEncoding.Strict().DecodeString(tok[:40] + "\r\n" + tok[40:]); err != nil {
		t.Fatalf("premise broken, decoder rejects CRLF now: %v", err)
	}
	for _, ws := range []string{"\r", "\n", "\r\n", "\n\r", " ", "\t", "\v", "\f", "\u00a0", "\u2028"} {
		for i := 0; i <= len(tok); i++ {
			mut := tok[:i] + ws + tok[i:]
			if r := openFails(t, c, testBinding, mut, fmt.Sprintf("%q at %d", ws, i)); r != NotCanonical {
				t.Errorf("%q at %d: reason %v, want not_canonical", ws, i, r)
			}
		}
	}
	// Line-wrapped like MIME, and surrounded by whitespace.
	var wrapped strings.Builder
	for i := 0; i < len(tok); i += 76 {
		wrapped.WriteString(tok[i:min(i+76, len(tok))])
		wrapped.WriteString("\r\n")
	}
	for _, mut := range []string{wrapped.String(), " " + tok, tok + " ", tok + "\n", "\n" + tok, "\t" + tok + "\r\n"} {
		if r := openFails(t, c, testBinding, mut, "wrapped"); r != NotCanonical {
			t.Errorf("%q: reason %v, want not_canonical", mut, r)
		}
	}
}

func TestPadding(t *testing.T) {
	c, tok, raw := victim(t)
	padded := base64.URLEncoding.EncodeToString(raw) // 92 bytes: one '='
	if padded == tok || !strings.HasSuffix(padded, "=") {
		t.Fatalf("premise: padded %q", padded)
	}
	for _, mut := range []string{padded, tok + "=", tok + "==", tok + "===", tok[:len(tok)-1] + "=", "=" + tok, tok[:60] + "=" + tok[60:]} {
		if r := openFails(t, c, testBinding, mut, "padding"); r != NotCanonical {
			t.Errorf("%q: reason %v, want not_canonical", mut, r)
		}
	}
}

func TestStandardAlphabet(t *testing.T) {
	// Find a token that has both '-' and '_' (deterministic nonce source).
	c, _ := testCodec(t, mustRing(t, Key{ID: 1, Secret: secretOf(1)}))
	var tok string
	for range 100 {
		tok = mustSeal(t, c, testBinding, time.Hour, plaintext51)
		if strings.Contains(tok, "-") && strings.Contains(tok, "_") {
			break
		}
	}
	if !strings.Contains(tok, "-") || !strings.Contains(tok, "_") {
		t.Fatal("no token with both - and _ found")
	}
	raw, _ := b64.DecodeString(tok)
	variants := []string{
		base64.StdEncoding.EncodeToString(raw),
		base64.RawStdEncoding.EncodeToString(raw),
		strings.NewReplacer("-", "+", "_", "/").Replace(tok),
	}
	for i := range len(tok) {
		switch tok[i] {
		case '-':
			variants = append(variants, tok[:i]+"+"+tok[i+1:])
		case '_':
			variants = append(variants, tok[:i]+"/"+tok[i+1:])
		}
	}
	for _, v := range variants {
		if v == tok {
			t.Fatalf("variant equals the token")
		}
		if r := openFails(t, c, testBinding, v, "standard alphabet"); r != NotCanonical {
			t.Errorf("%q: reason %v, want not_canonical", v, r)
		}
	}
	// The URL-escaped form is not a token either.
	if r := openFails(t, c, testBinding, strings.ReplaceAll(tok, "-", "%2D"), "url-escaped"); r != NotCanonical {
		t.Errorf("url-escaped: reason %v", r)
	}
}

func TestHeaderTampering(t *testing.T) {
	// A ring with two live keys: moving a token to the other key's id,
	// or changing its expiry, must fail authentication.
	ring := mustRing(t, Key{ID: 1, Secret: secretOf(1)}, Key{ID: 2, Secret: secretOf(1)}) // same secret on purpose
	c, clk := testCodec(t, ring)
	tok := mustSeal(t, c, testBinding, time.Minute, plaintext51)
	raw, _ := b64.DecodeString(tok)

	r := bytes.Clone(raw)
	r[4] = 2
	if got := openFails(t, c, testBinding, b64.EncodeToString(r), "kid 1→2"); got != Forged {
		t.Errorf("kid 1→2 (same secret): reason %v, want forged", got)
	}
	for _, delta := range []uint64{1, 60, 3600, 1 << 32} {
		r := bytes.Clone(raw)
		exp := uint64(r[5])<<56 | uint64(r[6])<<48 | uint64(r[7])<<40 | uint64(r[8])<<32 |
			uint64(r[9])<<24 | uint64(r[10])<<16 | uint64(r[11])<<8 | uint64(r[12])
		exp += delta
		for k := range 8 {
			r[5+k] = byte(exp >> (56 - 8*k))
		}
		clk.t = t0.Add(time.Hour) // the original has expired; the extension must not help
		if got := openFails(t, c, testBinding, b64.EncodeToString(r), "exp extended"); got != Forged {
			t.Errorf("exp +%d: reason %v, want forged", delta, got)
		}
	}
}

func TestSplicing(t *testing.T) {
	// Parts of two valid tokens (same key, same binding) combined.
	c, _ := testCodec(t, mustRing(t, Key{ID: 1, Secret: secretOf(1)}))
	a, _ := b64.DecodeString(mustSeal(t, c, testBinding, time.Minute, plaintext51))
	b, _ := b64.DecodeString(mustSeal(t, c, testBinding, 2*time.Minute, plaintext51))
	body := HeaderLen + NonceLen
	splices := map[string][]byte{
		"header(b)+rest(a)":     append(bytes.Clone(b[:HeaderLen]), a[HeaderLen:]...),
		"nonce(b)":              append(append(bytes.Clone(a[:HeaderLen]), b[HeaderLen:body]...), a[body:]...),
		"tag(b)":                append(bytes.Clone(a[:len(a)-TagLen]), b[len(b)-TagLen:]...),
		"ciphertext(b)":         append(append(bytes.Clone(a[:body]), b[body:len(b)-TagLen]...), a[len(a)-TagLen:]...),
		"ciphertext xor":        xorMiddle(a, body),
		"tag zeroed":            append(bytes.Clone(a[:len(a)-TagLen]), make([]byte, TagLen)...),
		"no ciphertext, tag(a)": append(bytes.Clone(a[:body]), a[len(a)-TagLen:]...),
	}
	for name, r := range splices {
		if got := openFails(t, c, testBinding, b64.EncodeToString(r), name); got != Forged {
			t.Errorf("%s: reason %v, want forged", name, got)
		}
	}
}

func xorMiddle(a []byte, body int) []byte {
	r := bytes.Clone(a)
	for i := body; i < len(r)-TagLen; i++ {
		r[i] ^= 0x20
	}
	return r
}
