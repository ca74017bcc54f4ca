// Package bench compares the mrtrgen requestState codec with a JWT carrying
// the same continuation. It is a separate module so that the JWT library
// never becomes a dependency of github.com/mrtrgen/mrtrgen.
package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
)

// The continuation of a multi-round "create_ticket" call.
const (
	server    = "ticket-server"
	tool      = "create_ticket"
	principal = "user:alice@example.com"
	ttl       = 10 * time.Minute
)

// continuation is the state both formats carry as their payload. Both
// sides encode it with encoding/json, so the difference measured is the
// token format, not the payload encoding.
type continuation struct {
	TicketID   string `json:"tid"`
	WorkflowID []byte `json:"wf"` // 16 bytes
	State      string `json:"st"`
}

var (
	state = continuation{
		TicketID:   "T-1234",
		WorkflowID: []byte{0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f},
		State:      "awaiting_approval",
	}
	argsDigest = sha256.Sum256([]byte(`{"priority":"high","title":"printer on fire"}`))
	secret     = bytes.Repeat([]byte{0x42}, 32)
)

// boundClaims is a JWT that asserts what a sealed token asserts: the tool,
// the server (aud), the user (sub), the call arguments and the expiry.
type boundClaims struct {
	Tool string `json:"tool"`
	Args []byte `json:"args"` // SHA-256 of the canonical arguments
	continuation
	jwt.RegisteredClaims
}

// minimalClaims is a JWT with only tool name, continuation and expiry: it
// binds neither server, user nor arguments.
type minimalClaims struct {
	Tool string `json:"tool"`
	continuation
	jwt.RegisteredClaims
}

func BenchmarkContinuation(b *testing.B) {
	b.Run("mrtrgen-seal-open", func(b *testing.B) {
		ring, err := seal.NewRing(seal.Key{ID: 1, Secret: secret})
		if err != nil {
			b.Fatal(err)
		}
		codec := seal.New(ring, seal.Options{})
		binding := seal.Binding{Audience: server, Subject: "tools/call:" + tool, Principal: principal, ArgsDigest: argsDigest}
		var tok string
		for b.Loop() {
			pt, err := json.Marshal(&state)
			if err != nil {
				b.Fatal(err)
			}
			if tok, err = codec.Seal(binding, ttl, pt); err != nil {
				b.Fatal(err)
			}
			opened, err := codec.Open(binding, tok)
			if err != nil {
				b.Fatal(err)
			}
			var got continuation
			if err := json.Unmarshal(opened, &got); err != nil || got.TicketID != state.TicketID {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(tok)), "token-bytes")
	})

	b.Run("jwt-hs256-sign-verify", func(b *testing.B) {
		var tok string
		for b.Loop() {
			claims := boundClaims{Tool: tool, Args: argsDigest[:], continuation: state, RegisteredClaims: jwt.RegisteredClaims{
				Audience:  jwt.ClaimStrings{server},
				Subject:   principal,
				ExpiresAt: jwt.NewNumericDate(time.Now().Add(ttl)),
			}}
			var err error
			if tok, err = jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret); err != nil {
				b.Fatal(err)
			}
			var got boundClaims
			if _, err := jwt.ParseWithClaims(tok, &got, hs256Key,
				jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired(),
				jwt.WithAudience(server), jwt.WithSubject(principal)); err != nil {
				b.Fatal(err)
			}
			if got.Tool != tool || !bytes.Equal(got.Args, argsDigest[:]) || got.TicketID != state.TicketID {
				b.Fatal("claims do not match the request")
			}
		}
		b.ReportMetric(float64(len(tok)), "token-bytes")
	})

	b.Run("jwt-hs256-sign-verify-minimal", func(b *testing.B) {
		var tok string
		for b.Loop() {
			claims := minimalClaims{Tool: tool, continuation: state, RegisteredClaims: jwt.RegisteredClaims{
				ExpiresAt: jwt.NewNumericDate(time.Now().Add(ttl)),
			}}
			var err error
			if tok, err = jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret); err != nil {
				b.Fatal(err)
			}
			var got minimalClaims
			if _, err := jwt.ParseWithClaims(tok, &got, hs256Key,
				jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired()); err != nil {
				b.Fatal(err)
			}
			if got.Tool != tool || got.TicketID != state.TicketID {
				b.Fatal("claims do not match the request")
			}
		}
		b.ReportMetric(float64(len(tok)), "token-bytes")
	})
}

func hs256Key(t *jwt.Token) (any, error) {
	if t.Method != jwt.SigningMethodHS256 {
		return nil, errors.New("unexpected signing method")
	}
	return secret, nil
}

// TestTokensAgree checks that each format really round-trips the same
// continuation, so the benchmark compares like with like.
func TestTokensAgree(t *testing.T) {
	ring, _ := seal.NewRing(seal.Key{ID: 1, Secret: secret})
	codec := seal.New(ring, seal.Options{})
	binding := seal.Binding{Audience: server, Subject: "tools/call:" + tool, Principal: principal, ArgsDigest: argsDigest}
	pt, _ := json.Marshal(&state)
	tok, err := codec.Seal(binding, ttl, pt)
	if err != nil {
		t.Fatal(err)
	}
	opened, err := codec.Open(binding, tok)
	if err != nil || !bytes.Equal(opened, pt) {
		t.Fatalf("seal round trip: %v", err)
	}
	other := binding
	other.Principal = "user:mallory@example.com"
	if _, err := codec.Open(other, tok); err == nil {
		t.Fatal("sealed token opened for another principal")
	}

	claims := boundClaims{Tool: tool, Args: argsDigest[:], continuation: state, RegisteredClaims: jwt.RegisteredClaims{
		Audience: jwt.ClaimStrings{server}, Subject: principal, ExpiresAt: jwt.NewNumericDate(time.Now().Add(ttl)),
	}}
	jt, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jwt.ParseWithClaims(jt, &boundClaims{}, hs256Key, jwt.WithSubject("user:mallory@example.com")); err == nil {
		t.Fatal("JWT verified for another principal")
	}
	t.Logf("payload %d bytes; sealed token %d chars; bound JWT %d chars (ratio %.2f)", len(pt), len(tok), len(jt), float64(len(tok))/float64(len(jt)))
}
