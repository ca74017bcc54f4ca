package tasks

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	ownAuth := cfg.Authenticate != nil
	if cfg.Authenticate == nil {
		cfg.Authenticate = func(_ context.Context, extra *mcp.RequestExtra) (string, error) {
			if extra != nil && extra.TokenInfo != nil {
				return extra.TokenInfo.UserID, nil
			}
			return "", nil
		}
	}
	if cfg.PrincipalKeys == nil {
		if cfg.PrincipalSalt == nil {
			cfg.PrincipalSalt = make([]byte, 32)
			if _, err := rand.Read(cfg.PrincipalSalt); err != nil {
				return nil, err
			}
		}
		cfg.PrincipalKeys = [][]byte{cfg.PrincipalSalt}
	}
	for i, k := range cfg.PrincipalKeys {
		if len(k) < minEntropyBytes {
			return nil, fmt.Errorf("tasks: principal key %d (PrincipalSalt or PrincipalKeys) has %d bytes, want at least %d", i+1, len(k), minEntropyBytes)
		}
	}
	if cfg.StepLease <= 0 {
		cfg.StepLease = defaultStepLease
	}
	cfg.ClockSkew = clockSkew(cfg.ClockSkew)
	self, err := selfName(cfg.Instance)
	if err != nil {
		return nil, err
	}
	if cfg.SweepInterval == 0 {
		cfg.SweepInterval = defaultSweepInterval
	}
	if cfg.Executor == nil {
		cfg.Executor = NewInProcess()
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

// Install adds the extension to s: the capability under
// capabilities.extensions of server/discover results and of initialize
// results of 2026-07-28 and later, the methods tasks/get, tasks/update and
// tasks/cancel (gated on the client declaring the extension on protocol
// 2026-07-28 or later, -32021 otherwise; Mcp-Name checked against the task
// id, -32020), and the tools/call middleware that turns a round of a task
// tool that called Start into a CreateTaskResult. Install s once before
// registering task tools with AddTool.
func (m *Manager) Install(s *mcp.Server) error {
	m.mu.Lock()
	if _, ok := m.tools[s]; ok {
		m.mu.Unlock()
		return errors.New("tasks: Install called twice for this server")
	}
	m.tools[s] = map[string]*toolEntry{}
	m.mu.Unlock()
	if err := mcp.AddReceivingCustomMethod(s, MethodGet, func(ctx context.Context, _ *mcp.ServerSession, p *GetParams) (*DetailedTask, error) {
		return m.get(ctx, p.TaskID)
	}); err != nil {
		return err
	}
	if err := mcp.AddReceivingCustomMethod(s, MethodUpdate, func(ctx context.Context, _ *mcp.ServerSession, p *UpdateParams) (*Ack, error) {
		return m.update(ctx, p)
	}); err != nil {
		return err
	}
	if err := mcp.AddReceivingCustomMethod(s, MethodCancel, func(ctx context.Context, _ *mcp.ServerSession, p *CancelParams) (*Ack, error) {
		return m.cancel(ctx, p.TaskID)
	}); err != nil {
		return err
	}
	s.AddReceivingMiddleware(m.middleware(s))
	return nil
}

// ToolHandler is a go-sdk tool handler that may call Start.
type ToolHandler = mcp.ToolHandler

// AddTool registers a task tool on s (Install first). The handler runs
// every tools/call round as usual (MRTR rounds included) and calls Start
// when the long-running part begins.
func (m *Manager) AddTool(s *mcp.Server, t *mcp.Tool, support Support, opts ToolOptions, h ToolHandler) {
	if support != Optional && support != Required {
		panic(fmt.Sprintf("tasks.AddTool: %s: support must be Optional or Required", t.Name))
	}
	m.mu.Lock()
	tools, ok := m.tools[s]
	if !ok {
		m.mu.Unlock()
		panic("tasks.AddTool: call Install on the server first")
	}
	tools[t.Name] = &toolEntry{support: support, opts: opts}
	m.mu.Unlock()
	if t.Meta == nil {
		t.Meta = mcp.Meta{}
	}
	// SEP-2663 has tools say whether they run as tasks; go-sdk's Tool has
	// no execution field, so the declaration travels in _meta.
	t.Meta[ExtensionID] = map[string]any{"taskSupport": support.String()}
	s.AddTool(t, h)
}

// TTL is how long a task of a tool registered with opts stays readable
// after its last update: what its data must stay openable for.
func (m *Manager) TTL(opts ToolOptions) time.Duration {
	if opts.TTL > 0 {
		return opts.TTL
	}
	return m.cfg.TTL
}

// ClockSkew returns the clock difference between instances that steps
// tolerate (Config.ClockSkew).
func (m *Manager) ClockSkew() time.Duration { return m.cfg.ClockSkew }

func (m *Manager) tool(s *mcp.Server, name string) *toolEntry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tools[s][name]
}

// startKey carries the slot a task tool's round may fill with Start.
type startKey struct{}

type startSlot struct {
	m          *Manager
	tool       string
	entry      *toolEntry
	negotiated bool
	principal  string
	created    *CreateTaskResult
}

// extraKey carries the request's extra (token, headers) to the tasks/*
// handlers, which go-sdk gives only params.
type extraKey struct{}

type capsRequest interface {
	ClientCapabilities() *mcp.ClientCapabilities
}

type versionRequest interface {
	ProtocolVersion() string
}

// negotiated reports whether req may use the extension: it declares it,
// and it is a request of an era that has it (2026-07-28 and later; the
// version of its _meta, or of its session's initialize). An older session
// that declares it anyway (the Inspector's legacy mode does, next to the
// 2025-11-25 tasks capability) cannot read a flat resultType "task" nor
// call tasks/*: to its era the extension is not there. era is the
// request's protocol version ("" when it has none).
func negotiated(req mcp.Request) (ok bool, era string) {
	if vr, isVR := req.(versionRequest); isVR {
		era = vr.ProtocolVersion()
	}
	cr, isCR := req.(capsRequest)
	if !isCR {
		return false, era
	}
	c := cr.ClientCapabilities()
	if c == nil || c.Extensions == nil {
		return false, era
	}
	_, ok = c.Extensions[ExtensionID]
	return ok && hasExtension(era), era
}

// hasExtension reports whether protocol version era has the extension.
func hasExtension(era string) bool { return era >= protocolTasks }

// missingCapability is -32021 with data.requiredCapabilities naming the
// extension; for a request of an older era, the message says the
// extension needs 2026-07-28 (declaring it there is not enough).
func missingCapability(era string) error {
	data, _ := json.Marshal(map[string]any{
		"requiredCapabilities": map[string]any{"extensions": map[string]any{ExtensionID: map[string]any{}}},
	})
	msg := "the client did not declare the " + ExtensionID + " extension"
	if era != "" && !hasExtension(era) {
		msg = "the " + ExtensionID + " extension needs protocol " + protocolTasks + " or later; this request is on " + era
	}
	return &jsonrpc.Error{Code: codeMissingCapabilities, Message: msg, Data: data}
}

func (m *Manager) middleware(s *mcp.Server) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "server/discover", "initialize":
				res, err := next(ctx, method, req)
				if err == nil {
					advertise(res)
				}
				return res, err
			case MethodGet, MethodUpdate, MethodCancel:
				if ok, era := negotiated(req); !ok {
					return nil, missingCapability(era)
				}
				if err := checkNameHeader(req); err != nil {
					return nil, err
				}
				return next(context.WithValue(ctx, extraKey{}, req.GetExtra()), method, req)
			case "tools/call":
				ctr, ok := req.(*mcp.CallToolRequest)
				if !ok || ctr.Params == nil {
					break
				}
				entry := m.tool(s, ctr.Params.Name)
				if entry == nil {
					break
				}
				negotiated, era := negotiated(req)
				if !negotiated && entry.support == Required {
					return nil, missingCapability(era)
				}
				principal, err := m.cfg.Authenticate(ctx, req.GetExtra())
				if err != nil {
					return nil, &jsonrpc.Error{Code: codeInvalidParams, Message: "not authenticated"}
				}
				slot := &startSlot{m: m, tool: ctr.Params.Name, entry: entry, negotiated: negotiated, principal: principal}
				res, err := next(context.WithValue(ctx, startKey{}, slot), method, req)
				if err != nil {
					return nil, err
				}
				if slot.created != nil {
					return slot.created, nil
				}
				return res, nil
			}
			return next(ctx, method, req)
		}
	}
}

// advertise adds the extension to the capabilities of a server/discover
// result, and of an initialize result that negotiated an era that has it:
// a 2025-11-25 session is offered only what it can use.
func advertise(res mcp.Result) {
	var caps **mcp.ServerCapabilities
	switch r := res.(type) {
	case *mcp.DiscoverResult:
		caps = &r.Capabilities
	case *mcp.InitializeResult:
		if !hasExtension(r.ProtocolVersion) {
			return
		}
		caps = &r.Capabilities
	default:
		return
	}
	if *caps == nil {
		*caps = &mcp.ServerCapabilities{}
	}
	(*caps).AddExtension(ExtensionID, map[string]any{})
}

// checkNameHeader: on HTTP at protocol 2026-07-28 and later, the Mcp-Name
// header of a tasks/* request must carry the task id of its params
// (SEP-2663 "Routing Headers"); go-sdk checks Mcp-Name only for tools,
// prompts and resources.
func checkNameHeader(req mcp.Request) error {
	extra := req.GetExtra()
	if extra == nil || extra.Header == nil {
		return nil // not HTTP
	}
	if v := extra.Header.Get(headerProtocol); v == "" || v < protocolTasks {
		return nil
	}
	id, ok := taskIDOf(req.GetParams())
	if !ok {
		return nil
	}
	got := strings.TrimSpace(extra.Header.Get(headerName))
	if got == "" {
		return &jsonrpc.Error{Code: codeHeaderMismatch, Message: fmt.Sprintf("missing required %s header for %s", headerName, "tasks/*")}
	}
	if got != id {
		return &jsonrpc.Error{Code: codeHeaderMismatch, Message: fmt.Sprintf("header mismatch: %s does not match params.taskId", headerName)}
	}
	return nil
}

func taskIDOf(p mcp.Params) (string, bool) {
	switch p := p.(type) {
	case *GetParams:
		return p.TaskID, p != nil
	case *UpdateParams:
		return p.TaskID, p != nil
	case *CancelParams:
		return p.TaskID, p != nil
	}
	return "", false
}

// hashPrincipal is what a new task stores in place of its principal: an
// HMAC under the first principal key.
func (m *Manager) hashPrincipal(p string) string {
	return principalHash(m.cfg.PrincipalKeys[0], p)
}

func principalHash(key []byte, p string) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(p))
	return hex.EncodeToString(mac.Sum(nil))
}

// owns reports whether principal created rec: its hash under any of the
// principal keys (a task created before a rotation) is the stored one.
func (m *Manager) owns(rec *Record, principal string) bool {
	owned := 0
	for _, k := range m.cfg.PrincipalKeys {
		owned |= subtle.ConstantTimeCompare([]byte(rec.Principal), []byte(principalHash(k, principal)))
	}
	return owned == 1
}

// lookup returns the record of id if the caller's principal owns it.
func (m *Manager) lookup(ctx context.Context, id string) (*Record, error) {
	principal, err := m.principal(ctx)
	if err != nil {
		return nil, err
	}
	if id == "" {
		return nil, &jsonrpc.Error{Code: codeInvalidParams, Message: "taskId is required"}
	}
	rec, err := m.store.Get(ctx, id)
	if errors.Is(err, ErrNotFound) || err == nil && !m.owns(rec, principal) {
		return nil, unknownTask()
	}
	if err != nil {
		m.log.ErrorContext(ctx, "tasks: reading a task failed", "error", err)
		return nil, &jsonrpc.Error{Code: codeInternalError, Message: "task store unavailable"}
	}
	return rec, nil
}

func unknownTask() error {
	return &jsonrpc.Error{Code: codeInvalidParams, Message: "unknown taskId"}
}

func (m *Manager) principal(ctx context.Context) (string, error) {
	extra, _ := ctx.Value(extraKey{}).(*mcp.RequestExtra)
	p, err := m.cfg.Authenticate(ctx, extra)
	if err != nil {
		return "", &jsonrpc.Error{Code: codeInvalidParams, Message: "not authenticated"}
	}
	return p, nil
}

func (m *Manager) get(ctx context.Context, id string) (*DetailedTask, error) {
	rec, err := m.lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	rec = m.pastDeadline(ctx, rec)
	m.resumeIfStranded(ctx, rec)
	return detailed(rec), nil
}

// pastDeadline fails a resumable task that waits for its answers past its
// deadline (the spec's timeout counts from its creation, waiting
// included): no step runs to notice it. It returns the record as it is
// now.
func (m *Manager) pastDeadline(ctx context.Context, rec *Record) *Record {
	now := m.now()
	if rec.Step == 0 || rec.Deadline.IsZero() || now.Before(rec.Deadline) || rec.Status != StatusInputRequired {
		return rec
	}
	done, err := m.store.Update(ctx, rec.ID, func(r *Record) error {
		if r.Status != StatusInputRequired || now.Before(r.Deadline) {
			return errSkip
		}
		r.settle(StatusFailed, now)
		r.Error = &WireError{Code: codeInternalError, Message: "task timed out"}
		return nil
	})
	if err != nil {
		if fresh, gerr := m.store.Get(ctx, rec.ID); gerr == nil {
			return fresh
		}
		return rec
	}
	m.tel.ended(ctx, done)
	return done
}

// resumeIfStranded enqueues the step of a resumable task that is working
// but that no run has held for a StepLease: one an executor in process
// gave back when its instance stopped (InProcess keeps nothing), or whose
// runner died where no executor rescues it. Clients poll tasks/get, not
// tasks/update, while a task works, so this is where such a task is found.
// A step that is queued or running is not enqueued again (River would
// turn the duplicate away anyway; RunStep is idempotent).
func (m *Manager) resumeIfStranded(ctx context.Context, rec *Record) {
	now := m.now()
	if rec.Step == 0 || rec.Status != StatusWorking || rec.leaseLive(now) {
		return
	}
	if rec.Fault != nil && rec.Fault.Instance != m.self && rec.Lease == nil {
		// Its last run failed on another instance (InstanceFault) and
		// let go of the step: this one tries now, without waiting for the
		// other's backoff.
		m.enqueueStranded(ctx, rec)
		return
	}
	quiet := rec.UpdatedAt
	if rec.Lease != nil && rec.Lease.Until.After(quiet) {
		quiet = rec.Lease.Until
	}
	if now.Sub(quiet) < m.cfg.StepLease {
		return
	}
	m.enqueueStranded(ctx, rec)
}

func (m *Manager) enqueueStranded(ctx context.Context, rec *Record) {
	if err := m.cfg.Executor.Enqueue(context.WithoutCancel(ctx), rec.ID, rec.Step); err != nil {
		m.log.WarnContext(ctx, "tasks: enqueueing a stranded step failed; the next tasks/get tries again", "task", rec.ID, "step", rec.Step, "error", err)
	}
}

func (m *Manager) update(ctx context.Context, p *UpdateParams) (*Ack, error) {
	rec, err := m.lookup(ctx, p.TaskID)
	if err != nil {
		return nil, err
	}
	if rec = m.pastDeadline(ctx, rec); rec.Status.Terminal() {
		return newAck(), nil // answers to an ended task are ignored, as unknown keys are
	}
	// Decode each answer to a pending key now: a malformed answer is a
	// JSON-RPC error, not a task that fails later. Unknown keys (never
	// asked, already answered, or of an earlier round) are ignored.
	var answered int
	rec, err = m.store.Update(ctx, p.TaskID, func(r *Record) error {
		answered = 0
		for key, raw := range p.InputResponses {
			if _, ok := r.Pending[key]; !ok {
				continue
			}
			if _, err := decodeAnswer(key, raw); err != nil {
				return &jsonrpc.Error{Code: codeInvalidParams, Message: err.Error()}
			}
			if r.Answers == nil {
				r.Answers = map[string]json.RawMessage{}
			}
			r.Answers[key] = raw
			delete(r.Pending, key)
			answered++
		}
		if answered > 0 {
			if len(r.Pending) == 0 && r.Status == StatusInputRequired {
				r.Status = StatusWorking
				r.Due = m.now()
			}
			r.UpdatedAt = m.now()
		}
		return nil
	})
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			return nil, err
		}
		if errors.Is(err, ErrNotFound) {
			return nil, unknownTask()
		}
		return nil, &jsonrpc.Error{Code: codeInternalError, Message: "task store unavailable"}
	}
	if answered > 0 {
		m.tel.transition(ctx, rec, "update")
		m.wake(p.TaskID)
	}
	// A resumable task that is working but not running (its answers just
	// completed, or an earlier enqueue failed, or its runner died) gets
	// its step enqueued: so a client's retry of tasks/update recovers it.
	if rec.Step > 0 && rec.Status == StatusWorking && !rec.leaseLive(m.now()) {
		if err := m.cfg.Executor.Enqueue(context.WithoutCancel(ctx), rec.ID, rec.Step); err != nil {
			m.log.ErrorContext(ctx, "tasks: enqueueing a step failed", "task", rec.ID, "step", rec.Step, "error", err)
			return nil, &jsonrpc.Error{Code: codeInternalError, Message: "task executor unavailable; retry tasks/update"}
		}
	}
	return newAck(), nil
}

func (m *Manager) cancel(ctx context.Context, id string) (*Ack, error) {
	rec, err := m.lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	// Idempotent; but a retried cancel of a task whose runner died after
	// the first one (its lease ran out) settles it now.
	if rec.Status.Terminal() || rec.CancelRequested && rec.leaseLive(m.now()) {
		return newAck(), nil
	}
	var settled bool
	rec, err = m.store.Update(ctx, id, func(r *Record) error {
		settled = false
		if r.Status.Terminal() {
			return nil
		}
		now := m.now()
		r.CancelRequested = true
		r.UpdatedAt = now
		// A resumable task that no step runs (waiting for answers,
		// queued, or its runner's lease ran out) ends now; a running one
		// sees the flag (and a step that starts later does too).
		if r.Step > 0 && (r.Status == StatusInputRequired || !r.leaseLive(now)) {
			r.settle(StatusCancelled, now)
			settled = true
		}
		return nil
	})
	if errors.Is(err, ErrNotFound) {
		return newAck(), nil
	}
	if err != nil {
		return nil, &jsonrpc.Error{Code: codeInternalError, Message: "task store unavailable"}
	}
	if settled {
		m.tel.ended(ctx, rec)
	}
	m.mu.Lock()
	lt := m.local[id]
	var ends []context.CancelFunc
	for _, end := range m.runs[id] {
		ends = append(ends, end)
	}
	m.mu.Unlock()
	if lt != nil {
		lt.cancel()
	}
	for _, end := range ends {
		end()
	}
	return newAck(), nil
}

func (m *Manager) wake(id string) {
	m.mu.Lock()
	lt := m.local[id]
	m.mu.Unlock()
	if lt == nil {
		return
	}
	select {
	case lt.wake <- struct{}{}:
	default:
	}
}

// decodeAnswer checks that raw is an input response go-sdk can read.
func decodeAnswer(key string, raw json.RawMessage) (mcp.InputResponse, error) {
	b, err := json.Marshal(map[string]json.RawMessage{key: raw})
	if err != nil {
		return nil, err
	}
	var m mcp.InputResponseMap
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("inputResponses[%q]: not a valid input response", key)
	}
	return m[key], nil
}
