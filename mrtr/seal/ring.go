package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"strings"
)

// MinSecretLen is the minimum length in bytes of a key secret.
const MinSecretLen = 32

// hkdfInfo is the HKDF-SHA256 info string that derives the AES-256-GCM key
// from a Key's secret (salt nil).
const hkdfInfo = "mrtrgen/requestState/v1/aes-256-gcm"

// Environment variables read by RingFromEnv.
const (
	EnvKeys     = "MRTR_KEYS"
	EnvKeysFile = "MRTR_KEYS_FILE"
)

// Key is one entry of a Ring: a public identifier, carried in every token
// sealed with it, and a secret of at least MinSecretLen random bytes.
type Key struct {
	ID     uint32
	Secret []byte
}

// Ring is an ordered set of keys: the first seals, all of them open.
// A Ring is immutable and safe for concurrent use; it keeps only the
// derived AEAD keys, not the secrets.
type Ring struct {
	keys []ringKey
}

type ringKey struct {
	id   uint32
	aead cipher.AEAD
	// derive keys DeriveKeys: HKDF-derived from the secret under its own
	// info string, so nothing derived from it is the AEAD key.
	derive []byte
	// rest seals data at rest (recordatrest.go): its own HKDF info, so a token
	// never opens as a record nor a record as a token.
	rest cipher.AEAD
}

// deriveInfo is the HKDF info string of a key's derivation key.
const deriveInfo = "mrtrgen/derive/v1"

// NewRing builds a ring from keys. keys[0] seals new tokens; every key
// opens. It rejects an empty list, secrets shorter than MinSecretLen and
// duplicate ids. The secrets are not retained.
func NewRing(keys ...Key) (*Ring, error) {
	if len(keys) == 0 {
		return nil, errors.New("seal: a key ring needs at least one key")
	}
	r := &Ring{keys: make([]ringKey, 0, len(keys))}
	for i, k := range keys {
		if len(k.Secret) < MinSecretLen {
			return nil, fmt.Errorf("seal: key %d (position %d): secret is %d bytes, need at least %d",
				k.ID, i+1, len(k.Secret), MinSecretLen)
		}
		for _, prev := range r.keys {
			if prev.id == k.ID {
				return nil, fmt.Errorf("seal: key id %d is listed twice", k.ID)
			}
		}
		a, err := deriveAEAD(k.Secret, hkdfInfo)
		if err != nil {
			return nil, fmt.Errorf("seal: key %d: %w", k.ID, err)
		}
		rest, err := deriveAEAD(k.Secret, atRestInfo)
		if err != nil {
			return nil, fmt.Errorf("seal: key %d: %w", k.ID, err)
		}
		d, err := hkdf.Key(sha256.New, k.Secret, nil, deriveInfo, 32)
		if err != nil {
			return nil, fmt.Errorf("seal: key %d: %w", k.ID, err)
		}
		r.keys = append(r.keys, ringKey{id: k.ID, aead: a, derive: d, rest: rest})
	}
	return r, nil
}

func deriveAEAD(secret []byte, info string) (cipher.AEAD, error) {
	k, err := hkdf.Key(sha256.New, secret, nil, info, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(k)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// DeriveKeys returns a 32-byte key for purpose from each key of the ring,
// in the ring's order (the sealing key's first): keys for another use of
// the same secrets, such as the HMAC a task store keeps in place of a
// principal (tasks.Config.PrincipalKeys), that rotate with the ring. The
// same secrets and purpose give the same keys on every instance; another
// purpose gives unrelated ones, and none of them is a token key.
func (r *Ring) DeriveKeys(purpose string) [][]byte {
	out := make([][]byte, len(r.keys))
	for i, k := range r.keys {
		// HKDF-Expand of the key's derivation key, the purpose as info:
		// cannot fail for 32 bytes of SHA-256.
		b, err := hkdf.Expand(sha256.New, k.derive, "mrtrgen/derive/v1/"+purpose, 32)
		if err != nil {
			panic("seal: DeriveKeys: " + err.Error())
		}
		out[i] = b
	}
	return out
}

// SealingKeyID returns the id of the key that seals new tokens.
func (r *Ring) SealingKeyID() uint32 { return r.keys[0].id }

// KeyIDs returns the ids of the ring's keys, the sealing key first.
func (r *Ring) KeyIDs() []uint32 {
	ids := make([]uint32, len(r.keys))
	for i, k := range r.keys {
		ids[i] = k.id
	}
	return ids
}

func (r *Ring) lookup(id uint32) cipher.AEAD {
	if k := r.lookupKey(id); k != nil {
		return k.aead
	}
	return nil
}

func (r *Ring) lookupKey(id uint32) *ringKey {
	for i := range r.keys {
		if r.keys[i].id == id {
			return &r.keys[i]
		}
	}
	return nil
}

// ParseRing parses a key ring specification: entries "ID:SECRET" where ID
// is a decimal uint32 and SECRET is base64url without padding of at least
// MinSecretLen bytes. Entries are separated by commas or newlines (so the
// same syntax serves an environment variable and a file with one key per
// line); blank lines are ignored and '#' starts a comment that runs to the
// end of the line. The first entry seals; all entries open.
//
// Errors name the entry and line but never echo a secret.
func ParseRing(spec string) (*Ring, error) {
	var keys []Key
	for lineNo, line := range strings.Split(spec, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, entry := range strings.Split(line, ",") {
			entry = strings.TrimSpace(entry)
			if entry == "" {
				continue
			}
			k, err := parseEntry(entry)
			if err != nil {
				return nil, fmt.Errorf("seal: key spec entry %d (line %d): %w", len(keys)+1, lineNo+1, err)
			}
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, errors.New(`seal: key spec has no keys (want "ID:BASE64URLSECRET[,ID:BASE64URLSECRET...]")`)
	}
	return NewRing(keys...)
}

func parseEntry(entry string) (Key, error) {
	idText, secretText, ok := strings.Cut(entry, ":")
	if !ok {
		return Key{}, errors.New(`want "ID:BASE64URLSECRET", found no ':'`)
	}
	idText = strings.TrimSpace(idText)
	secretText = strings.TrimSpace(secretText)
	id, err := strconv.ParseUint(idText, 10, 32)
	if err != nil {
		return Key{}, fmt.Errorf("key id %q is not a decimal number in 0..4294967295", idText)
	}
	if secretText == "" {
		return Key{}, fmt.Errorf("key %d: empty secret", id)
	}
	secret, err := base64.RawURLEncoding.Strict().DecodeString(secretText)
	if err != nil {
		return Key{}, fmt.Errorf("key %d: secret is not base64url without padding (alphabet A-Z a-z 0-9 - _)", id)
	}
	if len(secret) < MinSecretLen {
		return Key{}, fmt.Errorf("key %d: secret is %d bytes, need at least %d", id, len(secret), MinSecretLen)
	}
	return Key{ID: uint32(id), Secret: secret}, nil
}

// RingFromEnv builds the ring from the environment: MRTR_KEYS holds a spec
// for ParseRing, or MRTR_KEYS_FILE names a file holding one. Setting both
// or neither is an error: keys are never generated silently (see
// EphemeralRing for development).
func RingFromEnv() (*Ring, error) {
	spec, specSet := os.LookupEnv(EnvKeys)
	file, fileSet := os.LookupEnv(EnvKeysFile)
	specSet = specSet && strings.TrimSpace(spec) != ""
	fileSet = fileSet && strings.TrimSpace(file) != ""
	switch {
	case specSet && fileSet:
		return nil, fmt.Errorf("seal: both %s and %s are set; set only one", EnvKeys, EnvKeysFile)
	case specSet:
		r, err := ParseRing(spec)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", EnvKeys, err)
		}
		return r, nil
	case fileSet:
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("seal: %s: %w", EnvKeysFile, err)
		}
		r, err := ParseRing(string(b))
		if err != nil {
			return nil, fmt.Errorf("%s=%s: %w", EnvKeysFile, file, err)
		}
		return r, nil
	default:
		return nil, fmt.Errorf("seal: no requestState keys configured: set %s (\"ID:BASE64URLSECRET,...\", first key seals) "+
			"or %s (a file with one such entry per line); generate a key with GenerateKeySpec", EnvKeys, EnvKeysFile)
	}
}

// EphemeralRing returns a ring with one freshly generated key, for
// development only. It calls warn (log.Print when nil) with a loud message:
// tokens sealed with an ephemeral key die when the process restarts and
// cannot be opened by any other instance.
func EphemeralRing(warn func(msg string)) (*Ring, error) {
	var b [4 + 32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	id := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	r, err := NewRing(Key{ID: id, Secret: b[4:]})
	if err != nil {
		return nil, err
	}
	msg := fmt.Sprintf("WARNING: requestState is sealed with an EPHEMERAL key (id %d) generated at startup. "+
		"Multi-round continuations will fail after a restart and across server instances. "+
		"For anything but local development set %s or %s to a persistent key ring shared by all instances.",
		id, EnvKeys, EnvKeysFile)
	if warn == nil {
		log.Print(msg)
	} else {
		warn(msg)
	}
	return r, nil
}

// GenerateKeySpec returns a ring spec entry "ID:SECRET" with a fresh
// 32-byte random secret, ready for MRTR_KEYS or a keys file.
func GenerateKeySpec(id uint32) (string, error) {
	var secret [32]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return "", err
	}
	return strconv.FormatUint(uint64(id), 10) + ":" + base64.RawURLEncoding.EncodeToString(secret[:]), nil
}

// NewReference returns a fresh random opaque reference of 128 bits,
// base64url without padding (22 characters), for continuations kept
// server-side. The reference itself should still travel sealed (it is the
// plaintext of a token), so it is bound to the audience, subject, principal
// and arguments like any other state.
func NewReference() (string, error) { return NewReferenceFrom(rand.Reader) }

// NewReferenceFrom is NewReference drawing from r. Only tests pass
// anything but crypto/rand (recordings that must come out the same on
// every run).
func NewReferenceFrom(r io.Reader) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}
