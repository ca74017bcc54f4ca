package tasks

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/ticks"
)

// Config configures a Manager. The zero value works for one process
// (memory store, random principal salt).
type Config struct {
	// Store holds the tasks; nil: a MemoryStore. Instances that share a
	// Store (and PrincipalSalt) answer for each other's tasks.
	Store Store
	// Instance names this instance (the Owner of the tasks it runs, spans).
	Instance string
	// Authenticate finds the principal of a request; nil: the user id of
	// the bearer token the SDK's auth middleware verified, or ""
	// (anonymous). A task is bound to the principal that created it:
	// every tasks/* call of another principal gets -32602, as for an
	// unknown task.
	Authenticate func(ctx context.Context, extra *mcp.RequestExtra) (string, error)
	// PrincipalSalt keys the hash stored in place of the principal; nil:
	// 32 random bytes (fine for one process; instances sharing a store
	// must share the salt).
	PrincipalSalt []byte
	// PrincipalKeys, when set, replace PrincipalSalt with a ring of keys,
	// for rotation: the first keys the hash of a new task's principal,
	// and a task is its principal's while any of them matches its hash.
	// Derive them from the same key ring on every instance
	// (seal.Ring.DeriveKeys), so a task stays its caller's for as long as
	// the key it was created under is in the ring.
	PrincipalKeys [][]byte
	// TTL is how long a task stays readable after its last update (so a
	// result is kept for TTL after the task ends); 0: one hour.
	TTL time.Duration
	// PollInterval is the interval the client is told to poll at, and the
	// interval at which a running task checks the store for answers and
	// cancellation made on other instances; 0: one second.
	PollInterval time.Duration
	// Logger; nil: slog.Default().
	Logger *slog.Logger
	// TracerProvider and MeterProvider; nil: the global ones.
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// Now is the clock; nil: time.Now.
	Now func() time.Time

	// Executor runs the steps of resumable tasks (AddResumableTool); nil:
	// an InProcess one (steps run on the instance that enqueued them, and
	// a step whose instance died is not resumed until a tasks/update
	// enqueues it again). New starts it and Close stops it.
	Executor Executor
	// StepLease is how long a running step's claim holds without being
	// renewed (it is renewed every PollInterval, or StepLease/3 if
	// shorter): a step whose instance died runs again elsewhere only
	// after it. 0: 30 seconds.
	StepLease time.Duration
	// Sealer, if set, seals what a record carries of the user's data
	// (input requests, answers, result, error, checkpoint) before it
	// reaches the Store, bound to the task's id; nil: stored in clear.
	// Instances sharing a Store must share the Sealer's keys.
	Sealer Sealer
	// SweepInterval is how often the Manager deletes expired records from
	// the Store; 0: one minute; negative: never (the store sweeps
	// itself, or another process does).
	SweepInterval time.Duration
	// ClockSkew is the difference between the clocks of the instances
	// sharing the Store that a step tolerates: a step function judges
	// what another instance sealed or stamped (a checkpoint's expiry, the
	// time it was issued, StepInput.Due) with it, and a step that finds a
	// difference beyond it fails as an InstanceFault (the instance's
	// problem, run again elsewhere), not as the client's. 0: two minutes;
	// negative: none. Leases and deadlines are not widened by it.
	ClockSkew time.Duration
}

// Manager serves the Tasks extension on servers it is installed on, and
// runs their tasks.
type Manager struct {
	cfg Config
	// self names this instance in the faults it records: Config.Instance,
	// or an id drawn by New.
	self string
	// ownAuth says Config.Authenticate was given (not the default).
	ownAuth bool
	store   Store
	log     *slog.Logger
	tel     *telemetry
	now     func() time.Time

	base   context.Context
	stop   context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	local  map[string]*localTask
	tools  map[*mcp.Server]map[string]*toolEntry
	closed bool
	// steps are the step functions of resumable tools, by tool name.
	steps map[string]StepFunc
	// runs cancel the steps running here, by task id and run id.
	runs map[string]map[string]context.CancelFunc
}

type localTask struct {
	cancel context.CancelFunc
	wake   chan struct{}
}

type toolEntry struct {
	support Support
	opts    ToolOptions
}

// ToolOptions tunes one task tool.
type ToolOptions struct {
	// TTL and PollInterval override the Manager's for this tool's tasks.
	TTL, PollInterval time.Duration
	// Timeout bounds a task's run (its context ends with
	// context.DeadlineExceeded, the task fails); 0: none. For a resumable
	// task it is a deadline from the task's creation: time spent waiting
	// for answers counts.
	Timeout time.Duration
}

// AuthenticatesItself reports whether Config.Authenticate was given: a
// program that finds its callers otherwise than by the SDK's verified
// token (mrtr.Config.Authenticate) must give the manager the same
// function, or every caller is the same anonymous principal to its tasks.
func (m *Manager) AuthenticatesItself() bool { return m.ownAuth }

// New returns a Manager.
func New(cfg Config) (*Manager, error) {
	ownAuth := cfg.Authenticate != nil
	if err := cfg.withDefaults(); err != nil {
		return nil, err
	}
	self, err := selfName(cfg.Instance)
	if err != nil {
		return nil, err
	}
	tel, err := newTelemetry(cfg.TracerProvider, cfg.MeterProvider)
	if err != nil {
		return nil, err
	}
	st := cfg.Store
	if cfg.Sealer != nil {
		st = sealedStore{Store: st, sealer: cfg.Sealer, now: cfg.Now}
	}
	base, stop := context.WithCancel(context.Background())
	m := &Manager{
		ownAuth: ownAuth, self: self,
		cfg: cfg, store: st, log: cfg.Logger, tel: tel, now: cfg.Now,
		base: base, stop: stop,
		local: map[string]*localTask{},
		tools: map[*mcp.Server]map[string]*toolEntry{},
		steps: map[string]StepFunc{},
		runs:  map[string]map[string]context.CancelFunc{},
	}
	if err := cfg.Executor.Start(base, m); err != nil {
		stop()
		return nil, fmt.Errorf("tasks: starting the executor: %w", err)
	}
	if cfg.SweepInterval > 0 {
		m.wg.Add(1)
		go m.sweep(cfg.SweepInterval)
	}
	return m, nil
}

// withDefaults fills in what cfg leaves zero and checks the principal keys.
func (cfg *Config) withDefaults() error {
	if cfg.Store == nil {
		cfg.Store = NewMemoryStore(cfg.Now)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.TTL <= 0 {
		cfg.TTL = defaultTTL
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = defaultPollInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Authenticate == nil {
		cfg.Authenticate = tokenUser
	}
	if cfg.PrincipalKeys == nil {
		if cfg.PrincipalSalt == nil {
			cfg.PrincipalSalt = make([]byte, 32)
			if _, err := rand.Read(cfg.PrincipalSalt); err != nil {
				return err
			}
		}
		cfg.PrincipalKeys = [][]byte{cfg.PrincipalSalt}
	}
	for i, k := range cfg.PrincipalKeys {
		if len(k) < minEntropyBytes {
			return fmt.Errorf("tasks: principal key %d (PrincipalSalt or PrincipalKeys) has %d bytes, want at least %d", i+1, len(k), minEntropyBytes)
		}
	}
	if cfg.StepLease <= 0 {
		cfg.StepLease = defaultStepLease
	}
	cfg.ClockSkew = clockSkew(cfg.ClockSkew)
	if cfg.SweepInterval == 0 {
		cfg.SweepInterval = defaultSweepInterval
	}
	if cfg.Executor == nil {
		cfg.Executor = NewInProcess()
	}
	return nil
}

// tokenUser is the principal without Config.Authenticate: the user of the
// request's verified bearer token, if any.
func tokenUser(_ context.Context, extra *mcp.RequestExtra) (string, error) {
	if extra != nil && extra.TokenInfo != nil {
		return extra.TokenInfo.UserID, nil
	}
	return "", nil
}

// clockSkew is Config.ClockSkew with its default.
func clockSkew(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return defaultClockSkew
	case d < 0:
		return 0
	}
	return d
}

// selfName is how the Manager names itself in the faults it records:
// instance, or an id drawn for an unnamed one (another instance takes a
// faulted step over at once only if the names differ).
func selfName(instance string) (string, error) {
	if instance != "" {
		return instance, nil
	}
	return newRunID()
}

// sweep deletes expired records every interval until the Manager closes.
func (m *Manager) sweep(every time.Duration) {
	defer m.wg.Done()
	ticks.Every(m.base, every, func() bool {
		if _, err := m.store.Sweep(m.base, m.now()); err != nil && m.base.Err() == nil {
			m.log.Warn("tasks: sweeping expired tasks failed", "error", err)
		}
		return true
	})
}

// Close stops the executor (the steps running here end their context
// and run again later, elsewhere if another instance runs them; see
// Executor.Stop), then ends the context of every task of Start this
// Manager runs and waits for them (or ctx). Tasks of Start ended this way
// are recorded as failed with "server shutting down" unless they finish
// first: nothing would resume them, and a task must not look as if it
// were still running.
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	stopErr := m.cfg.Executor.Stop(ctx)
	m.stop()
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if stopErr != nil {
		return fmt.Errorf("tasks: stopping the executor: %w", stopErr)
	}
	return nil
}
