package mrtr

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/mrtrgen/mrtrgen/mrtr/approval"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
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
	// StoreTimeout bounds each call to the Store. A round whose store call
	// times out ends with a retryable error result instead of hanging while
	// the store is unreachable. Default 5s.
	StoreTimeout time.Duration
	// RecordFor is how long an instance keeps trying, in the background, to
	// record the outcome of an effect (and the reply of its round) that
	// returned while the store was unreachable, renewing the claim's lease
	// whenever the store answers. Retries of that round wait on the claim
	// while its lease lasts; a store outage longer than the lease lets a
	// retry take the claim over when the store is back (Attempt.Takeover).
	// Default 15 minutes. See Engine.Drain for shutdowns.
	RecordFor time.Duration
	// PublicURL is where this server's own pages are reached by users
	// ("https://tools.example.com"): the url of a URL-mode elicitation
	// written as a path (/connect/{workflowId}) is sent as PublicURL
	// followed by that path. It must be an absolute http or https URL
	// without query or fragment; a program with such a path fails its
	// round while it is unset. Absolute urls of a spec are sent as they are.
	PublicURL string
	// Tasks runs the long-running tools (spec: task) as tasks of the MCP
	// Tasks extension (package mrtr/tasks; Install it on the server before
	// registering them). nil: a tool whose task mode is optional runs in
	// its rounds, and one whose mode is required cannot be registered.
	// With Authenticate set, the manager must authenticate with the same
	// function (tasks.Config.Authenticate); NewEngine refuses otherwise.
	// The tools run as resumable tasks: each step, on whichever instance
	// the manager's executor picks, runs one round from a checkpoint sealed
	// with Codec (so instances sharing the task store must share the key
	// ring); mrtr.TaskSealer seals the rest of a task's record.
	Tasks *tasks.Manager
	// Approvals keeps the approvals of gates with an approval policy
	// (docs/approvals.md): build it on the same store (approval.New) and
	// mount its Handler beside the MCP endpoint. A program with such a gate
	// cannot be registered without it.
	Approvals *approval.Service
	// Rand is where workflow ids and continuation references come from;
	// nil means crypto/rand. Only tests set it: mrtrtest's recorder, whose
	// recorded continuations must come out the same on every run.
	Rand io.Reader
}

// Engine runs rounds of generated programs. It is safe for concurrent use
// and holds no per-workflow state: any instance configured with the same
// audience, key ring and store can serve any round.
type Engine struct {
	cfg Config
	log *slog.Logger
	tel *telemetry
	// userStore is Config.Store as given; cfg.Store wraps it with
	// StoreTimeout.
	userStore store.Store
	// recording counts background recordings (see recordLater).
	recording sync.WaitGroup
	// completers are the programs with completions (completerKey ->
	// mrtrimpl.Completer), for Complete.
	completers sync.Map
}

// NewEngine checks cfg and returns an Engine.
func NewEngine(cfg Config) (*Engine, error) {
	if cfg.Audience == "" {
		return nil, errors.New("mrtr: Config.Audience is required (the server's name)")
	}
	if cfg.Codec == nil {
		return nil, errors.New("mrtr: Config.Codec is required (load keys with seal.RingFromEnv)")
	}
	if cfg.Authenticate != nil && cfg.Tasks != nil && !cfg.Tasks.AuthenticatesItself() {
		// Tasks would be bound to the SDK's token while rounds are bound to
		// Config.Authenticate's principal: one caller could read and answer
		// another's task.
		return nil, errors.New("mrtr: Config.Authenticate is set but the tasks manager (Config.Tasks) finds callers by the SDK's token: give tasks.Config.Authenticate the same function")
	}
	if cfg.Approvals != nil && cfg.Tasks != nil {
		// A task waiting for an approval is resumed when it is decided.
		cfg.Approvals.SetResume(cfg.Tasks.Resume)
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, log: cfg.Logger, userStore: cfg.Store}
	e.cfg.Store = bounded(cfg.Store, cfg.StoreTimeout)
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

// withDefaults returns cfg with its zero durations set to their defaults
// and PublicURL checked.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Lease <= 0 {
		cfg.Lease = 30 * time.Second
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = 64
	}
	if cfg.StoreTimeout <= 0 {
		cfg.StoreTimeout = 5 * time.Second
	}
	if cfg.RecordFor <= 0 {
		cfg.RecordFor = 15 * time.Minute
	}
	if cfg.PublicURL != "" {
		u, err := url.Parse(cfg.PublicURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return cfg, fmt.Errorf("mrtr: Config.PublicURL %q must be an absolute http or https URL without user, query or fragment", cfg.PublicURL)
		}
		cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	}
	return cfg, nil
}

// Store returns the engine's store (may be nil).
func (e *Engine) Store() store.Store { return e.userStore }

// Drain waits until the outcomes this instance still has to record (effects
// that returned while the store was unreachable) are recorded or given up,
// or until ctx ends. Call it on shutdown after the server stopped taking
// requests: an instance that exits before its recordings finish leaves those
// operations to be taken over (and run again) by a retry.
func (e *Engine) Drain(ctx context.Context) error {
	done := make(chan struct{})
	go func() { e.recording.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

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
	return context.WithTimeout(context.WithoutCancel(ctx), detachTimeout)
}

const detachTimeout = 5 * time.Second

// detachForStore is detach for a context that only makes one store call:
// the store gives that call Config.StoreTimeout (boundedStore), so when
// StoreTimeout is within detach's bound the context needs no deadline,
// and no timer, of its own.
func (e *Engine) detachForStore(ctx context.Context) (context.Context, context.CancelFunc) {
	if e.cfg.StoreTimeout <= detachTimeout {
		return context.WithoutCancel(ctx), func() {}
	}
	return detach(ctx)
}

// Authenticator finds the principal of a request. An error refuses the
// round with "not authenticated".
type Authenticator func(ctx context.Context, extra *mcp.RequestExtra) (string, error)
