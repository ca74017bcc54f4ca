package mrtr

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Config configures an Engine.
type Config struct {
	// Audience names this server (or this fleet of identical instances).
	// Every requestState is bound to it, so a token minted by another
	// server does not open here. Required.
	Audience string
	// Codec seals and opens requestState. Required: build it from a key
	// ring loaded from configuration (seal.RingFromEnv); only development
	// setups should use seal.EphemeralRing. The codec's clock
	// (seal.Options.Now) decides when a requestState has expired; the
	// store's clock (store.Options.Now) decides when records lapse.
	Codec *seal.Codec
	// Store keeps round and effect records (so retries never repeat side
	// effects) and server-side continuations of sensitive workflows. With a
	// nil Store, retried rounds run again and programs that keep their
	// continuation by reference cannot run: use store.NewMemory in tests and
	// a shared store (SQLite, PostgreSQL, Redis) in production.
	Store store.Store
	// Authenticate finds the principal of a request (the caller whose
	// identity tokens and records are bound to). nil means the user id of
	// the bearer token verified by the SDK's auth middleware, or anonymous.
	Authenticate Authenticator
	// Instance names the serving process in logs and spans.
	Instance string
	// Logger receives one record per rejected continuation and per failed
	// round, with the precise reason clients are not shown. nil means
	// slog.Default().
	Logger *slog.Logger
	// TracerProvider and MeterProvider default to the global OpenTelemetry
	// providers (no-op unless the program installs real ones).
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// Lease is how long a round or effect claim blocks duplicates before
	// another instance may take it over. Default 30s; make it longer than
	// your slowest round. It is also how long a retry waits when the
	// instance serving the first attempt died mid-round.
	Lease time.Duration
	// MaxSteps bounds the states one round may run (a guard against loops
	// of checks without input). Default 64.
	MaxSteps int
}

// Engine runs rounds of generated programs. It is safe for concurrent use
// and holds no per-workflow state: any instance configured with the same
// audience, key ring and store can serve any round.
type Engine struct {
	cfg Config
	log *slog.Logger
	tel *telemetry
}

// NewEngine checks cfg and returns an Engine.
func NewEngine(cfg Config) (*Engine, error) {
	if cfg.Audience == "" {
		return nil, errors.New("mrtr: Config.Audience is required (the server's name)")
	}
	if cfg.Codec == nil {
		return nil, errors.New("mrtr: Config.Codec is required (load keys with seal.RingFromEnv)")
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 30 * time.Second
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = 64
	}
	e := &Engine{cfg: cfg, log: cfg.Logger}
	if e.log == nil {
		e.log = slog.Default()
	}
	tel, err := newTelemetry(cfg.TracerProvider, cfg.MeterProvider)
	if err != nil {
		return nil, err
	}
	e.tel = tel
	return e, nil
}

// Store returns the engine's store (may be nil).
func (e *Engine) Store() store.Store { return e.cfg.Store }

// principalHash is what records and tokens bind instead of the raw
// identity: a salted (by audience) SHA-256.
func (e *Engine) principalHash(principal string) string {
	if principal == "" {
		return ""
	}
	h := sha256.New()
	h.Write([]byte("mrtrgen/principal/v1\x00"))
	h.Write([]byte(e.cfg.Audience))
	h.Write([]byte{0})
	h.Write([]byte(principal))
	return hex.EncodeToString(h.Sum(nil))
}

// detach returns a context for cleanup that must happen even when the
// request's context was cancelled (releasing a claim), bounded in time.
func detach(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
}
