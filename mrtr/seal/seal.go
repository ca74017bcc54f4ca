package seal

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"time"
	"unsafe"

	"github.com/mrtrgen/mrtrgen/vocab"
)

// Token layout constants. A token is the unpadded base64url encoding of
//
//	version(1) | kid(4, big-endian) | exp(8, big-endian unix seconds) | nonce(12) | ciphertext | tag(16)
const (
	// Version is the format version byte this package seals and opens.
	Version byte = 0x01
	// HeaderLen is the length of version|kid|exp.
	HeaderLen = 1 + 4 + 8
	// NonceLen is the AES-GCM nonce length.
	NonceLen = 12
	// TagLen is the AES-GCM tag length.
	TagLen = 16
	// Overhead is the number of bytes a token adds to its plaintext before
	// base64url encoding.
	Overhead = HeaderLen + NonceLen + TagLen
)

// Domain is the domain-separation string that starts the associated data.
const Domain = "mrtrgen/requestState/v1"

// Defaults for Options.
const (
	DefaultSkew        = 30 * time.Second
	DefaultMaxTokenLen = 8192
)

// b64 is the only encoding tokens use. Strict rejects non-zero trailing
// bits; Open additionally rejects the CR/LF the decoder skips.
var b64 = base64.RawURLEncoding.Strict()

// Binding is what a token is bound to. None of it is stored in the token:
// Seal authenticates it as associated data and Open recomputes it from the
// request at hand, so a token only opens for the same audience, subject,
// principal and arguments it was sealed for.
type Binding struct {
	// Audience is the name of the server the token is for.
	Audience string
	// Subject is "tools/call:<tool>" or "prompts/get:<prompt>".
	Subject string
	// Principal identifies the authenticated user ("" when there is none).
	// A hash of the identity is as good as the raw id; it is never stored.
	Principal string
	// ArgsDigest is the SHA-256 of the canonical call arguments.
	ArgsDigest [32]byte
}

// Options tune a Codec. The zero value gives the defaults.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Skew is how long after its expiry a token is still accepted, to
	// absorb clock differences between instances. Zero means DefaultSkew;
	// a negative value means no tolerance at all.
	Skew time.Duration
	// MaxTokenLen caps the encoded token length, checked before any
	// decoding; Seal refuses plaintexts whose token would exceed it.
	// Zero or negative means DefaultMaxTokenLen.
	MaxTokenLen int
	// Rand is the nonce source; nil means crypto/rand. Only tests should
	// set it. A caller-supplied reader is serialized by the Codec.
	Rand io.Reader
}

// Codec seals and opens requestState tokens. It is safe for concurrent use.
type Codec struct {
	ring   *Ring
	now    func() time.Time // nil: the wall clock (time.Now, wallClock)
	skew   time.Duration
	maxLen int
	rand   io.Reader // nil: crypto/rand
	randMu sync.Mutex
}

// New returns a Codec that seals with ring's first key and opens with any
// of its keys. It panics if ring is nil: a missing key ring is a
// configuration error that must surface at startup.
func New(ring *Ring, opts Options) *Codec {
	if ring == nil || len(ring.keys) == 0 {
		panic("seal: New called without a key ring")
	}
	c := &Codec{ring: ring, now: opts.Now, skew: opts.Skew, maxLen: opts.MaxTokenLen, rand: opts.Rand}
	switch {
	case c.skew == 0:
		c.skew = DefaultSkew
	case c.skew < 0:
		c.skew = 0
	}
	if c.maxLen <= 0 {
		c.maxLen = DefaultMaxTokenLen
	}
	return c
}

// WithMaxTokenLen returns a Codec with c's keys, clock and skew whose
// tokens may be up to n characters long: for data sealed to be stored
// server-side (a task's record), which no header or URL bounds. The copy
// draws its nonces from crypto/rand.
func (c *Codec) WithMaxTokenLen(n int) *Codec {
	skew := c.skew
	if skew == 0 {
		skew = -1 // Options' "no tolerance"
	}
	return New(c.ring, Options{Now: c.now, Skew: skew, MaxTokenLen: n})
}

// WithSkew returns a Codec with c's keys, clock and MaxTokenLen that
// accepts a token up to skew after its expiry (at least c's own skew): for
// a token the server kept itself (a task's checkpoint) and judges with the
// clock skew tolerated between its instances, where a client-held token
// is judged with c's. The copy draws its nonces from crypto/rand.
func (c *Codec) WithSkew(skew time.Duration) *Codec {
	skew = max(skew, c.skew)
	if skew == 0 {
		skew = -1 // Options' "no tolerance"
	}
	return New(c.ring, Options{Now: c.now, Skew: skew, MaxTokenLen: c.maxLen})
}

// Now reads the codec's clock (Options.Now): what expiries are judged by.
func (c *Codec) Now() time.Time {
	if c.now == nil {
		return time.Now()
	}
	return c.now()
}

// clock is the time Seal (up false) and Open (up true) work with: the
// injected clock, or else the wall clock read alone (wallClock).
func (c *Codec) clock(up bool) time.Time {
	if c.now == nil {
		return wallClock(up)
	}
	return c.now()
}

// TokenLen returns the encoded length of a token carrying n plaintext bytes.
func TokenLen(n int) int { return b64.EncodedLen(Overhead + n) }

// Skew returns how long after its expiry the codec still accepts a token.
// Records that must outlive every token still accepted (round records,
// server-side continuations) are kept at least TTL + Skew.
func (c *Codec) Skew() time.Duration { return c.skew }

// MaxPlaintextLen returns the largest plaintext Seal accepts under the
// codec's MaxTokenLen (negative when even an empty one does not fit).
func (c *Codec) MaxPlaintextLen() int {
	return b64.DecodedLen(c.maxLen) - Overhead
}

// Seal encrypts plaintext into a token bound to b that expires ttl from
// now (rounded up to the next whole second). Errors from Seal are
// configuration or programming errors, not client errors.
func (c *Codec) Seal(b Binding, ttl time.Duration, plaintext []byte) (string, error) {
	if ttl <= 0 {
		return "", errors.New("seal: ttl must be positive")
	}
	n := Overhead + len(plaintext)
	if len(plaintext) > c.maxLen || b64.EncodedLen(n) > c.maxLen {
		return "", fmt.Errorf("seal: a %d-byte plaintext makes a token longer than MaxTokenLen (%d)", len(plaintext), c.maxLen)
	}
	now := c.clock(false)
	expT := now.Add(ttl)
	exp := expT.Unix()
	if expT.Nanosecond() != 0 {
		exp++
	}
	if exp <= now.Unix() || exp <= 0 {
		return "", fmt.Errorf("seal: expiry %v out of range", expT)
	}

	al, ok := aadLen(&b)
	if !ok {
		return "", errors.New("seal: binding field longer than 4 GiB")
	}
	// One allocation, which the returned string keeps: the encoding first
	// (the string's bytes), then the token bytes and the associated data,
	// dead once the encoding is written.
	el := b64.EncodedLen(n)
	scratch := make([]byte, el+n+al)
	enc, buf, aadBuf := scratch[:el:el], scratch[el:el+HeaderLen+NonceLen:el+n], scratch[el+n:el+n:el+n+al]

	key := &c.ring.keys[0]
	buf[0] = Version
	binary.BigEndian.PutUint32(buf[1:5], key.id)
	binary.BigEndian.PutUint64(buf[5:HeaderLen], uint64(exp))
	nonce := buf[HeaderLen : HeaderLen+NonceLen]
	if err := c.readNonce(nonce); err != nil {
		return "", fmt.Errorf("seal: reading nonce: %w", err)
	}
	aad := appendAAD(aadBuf, buf[:HeaderLen], &b)
	b64.Encode(enc, key.aead.Seal(buf, nonce, plaintext, aad))
	// No copy: nothing writes to scratch after this, and no reference to
	// it escapes but the string (what strings.Builder does).
	return unsafe.String(&enc[0], len(enc)), nil
}

func (c *Codec) readNonce(nonce []byte) error {
	if c.rand == nil {
		_, err := rand.Read(nonce)
		return err
	}
	c.randMu.Lock()
	defer c.randMu.Unlock()
	_, err := io.ReadFull(c.rand, nonce)
	return err
}

// Open checks token against b and returns its plaintext. The checks run in
// this order: length cap, canonical unpadded base64url, minimum length,
// version, key id, AEAD authentication (which covers the header and the
// binding), expiry. Every error satisfies errors.Is(err, ErrInvalid) and is
// an *Error carrying the Reason; clients must only ever be shown
// PublicMessage. For Expired alone the plaintext is returned too: the token
// is authentic, and a caller may look up what it already did (the reply
// recorded for its round), but must not continue the work it describes.
func (c *Codec) Open(b Binding, token string) ([]byte, error) {
	if len(token) > c.maxLen {
		return nil, invalid(TooLong, fmt.Sprintf("%d characters, limit %d", len(token), c.maxLen))
	}
	al, ok := aadLen(&b)
	if !ok {
		return nil, invalid(Forged, "binding field longer than 4 GiB")
	}
	// One scratch allocation: token bytes | associated data.
	dl := b64.DecodedLen(len(token))
	scratch := make([]byte, dl+al)
	n, err := b64.Decode(scratch[:dl], []byte(token))
	if err != nil {
		return nil, invalid(NotCanonical, "not unpadded base64url")
	}
	raw := scratch[:n:n]
	if !canonical(token, raw) {
		return nil, invalid(NotCanonical, "not the canonical encoding of its bytes (line breaks?)")
	}
	if len(raw) < Overhead {
		return nil, invalid(Truncated, fmt.Sprintf("%d bytes, minimum %d", len(raw), Overhead))
	}
	if raw[0] != Version {
		return nil, invalid(UnknownVersion, fmt.Sprintf("version 0x%02x", raw[0]))
	}
	kid := binary.BigEndian.Uint32(raw[1:5])
	aead := c.ring.lookup(kid)
	if aead == nil {
		return nil, invalid(UnknownKey, fmt.Sprintf("key id %d is not in the ring", kid))
	}
	aad := appendAAD(scratch[dl:dl:dl+al], raw[:HeaderLen], &b)
	body := raw[HeaderLen+NonceLen:]
	plaintext, err := aead.Open(body[:0], raw[HeaderLen:HeaderLen+NonceLen], body, aad)
	if err != nil {
		return nil, invalid(Forged, fmt.Sprintf("authentication failed under key id %d", kid))
	}
	exp := binary.BigEndian.Uint64(raw[5:HeaderLen])
	now := c.clock(true)
	if exp > math.MaxInt64 || now.After(time.Unix(int64(exp), 0).Add(c.skew)) {
		// Authentic: the plaintext is returned with the error, for lookups
		// of what the token already did (a recorded reply), never to go on.
		return plaintext, &Error{Reason: Expired, Expiry: time.Unix(int64(min(exp, math.MaxInt64)), 0),
			detail: fmt.Sprintf("expired at unix %d, now %d, skew %v", exp, now.Unix(), c.skew)}
	}
	return plaintext, nil
}

// canonical reports whether token is exactly the encoding of raw. The
// strict decoder already rejects bad characters, padding and non-zero
// trailing bits, but it silently skips '\r' and '\n'. Every other character
// it accepts stands for six bits of raw, so a token is the canonical
// encoding of what it decoded to exactly when no character was skipped:
// when its length is the encoded length of raw (a skipped line break
// makes the token longer). No re-encoding needed.
func canonical(token string, raw []byte) bool {
	return b64.EncodedLen(len(raw)) == len(token)
}

// aadLen is the exact length of the associated data for b; false when a
// field is too long for its 4-byte length prefix.
func aadLen(b *Binding) (int, bool) {
	n := len(Domain) + HeaderLen + 4*4 + len(b.ArgsDigest)
	for _, f := range [...]string{b.Audience, b.Subject, b.Principal} {
		if uint64(len(f)) > math.MaxUint32 {
			return 0, false
		}
		n += len(f)
	}
	return n, true
}

// appendAAD appends the associated data:
//
//	Domain | header(13) | len32(Audience) Audience | len32(Subject) Subject |
//	len32(Principal) Principal | len32(32) ArgsDigest
//
// where len32 is a 4-byte big-endian length (aadLen has checked that each
// fits). Domain and header have fixed lengths, and every variable field is
// length-prefixed, so distinct (header, Binding) pairs always give distinct
// byte strings.
func appendAAD(dst, header []byte, b *Binding) []byte {
	dst = append(dst, Domain...)
	dst = append(dst, header...)
	for _, f := range [...]string{b.Audience, b.Subject, b.Principal} {
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(f)))
		dst = append(dst, f...)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(b.ArgsDigest)))
	return append(dst, b.ArgsDigest[:]...)
}

// ToolSubject returns the Binding.Subject for a tools/call of tool.
func ToolSubject(tool string) string { return vocab.MethodToolsCall + ":" + tool }

// PromptSubject returns the Binding.Subject for a prompts/get of prompt.
func PromptSubject(prompt string) string { return vocab.MethodPromptsGet + ":" + prompt }

// ResourceSubject returns the Binding.Subject for a resources/read of the
// resource (or resource template) named resource. The URI read is bound
// through the arguments digest: a resource's arguments are its URI's
// template variables, and a fixed URI has none.
func ResourceSubject(resource string) string { return vocab.MethodResourcesRead + ":" + resource }
