// Package app wires the example server: every example tool and prompt on
// one MCP server, their engine, the mrtr store and the domain store, served
// over HTTP at /mcp with mrtr.Handler (protocol 2026-07-28 statelessly,
// older clients on stateful sessions). The command examples/server parses
// flags and calls it; tests start it in-process.
package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/generated/calendars"
	"github.com/mrtrgen/mrtrgen/examples/generated/conformance"
	"github.com/mrtrgen/mrtrgen/examples/generated/conformanceprogress"
	"github.com/mrtrgen/mrtrgen/examples/generated/customers"
	"github.com/mrtrgen/mrtrgen/examples/generated/deployments"
	"github.com/mrtrgen/mrtrgen/examples/generated/onboarding"
	"github.com/mrtrgen/mrtrgen/examples/generated/payments"
	"github.com/mrtrgen/mrtrgen/examples/generated/refunds"
	"github.com/mrtrgen/mrtrgen/examples/generated/releases"
	"github.com/mrtrgen/mrtrgen/examples/generated/rollouts"
	"github.com/mrtrgen/mrtrgen/examples/generated/status"
	"github.com/mrtrgen/mrtrgen/examples/generated/subscriptions"
	"github.com/mrtrgen/mrtrgen/examples/generated/tickets"
	"github.com/mrtrgen/mrtrgen/examples/server/backends"
	"github.com/mrtrgen/mrtrgen/mrtr"
	"github.com/mrtrgen/mrtrgen/mrtr/approval"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// Name is the server's MCP implementation name.
const Name = "mrtrgen-example"

// MCPPath is where the MCP endpoint is served.
const MCPPath = "/mcp"

// Config configures the server.
type Config struct {
	// Backends open what StoreURL names: backends.Embedded (memory:,
	// sqlite:PATH; SQLite alone is linked) or allstores.Set (every store,
	// River). Required.
	Backends *backends.Set
	// StoreURL names the mrtr store and the domain store (the forms of
	// Backends: memory:, sqlite:PATH, postgres://…, redis://…). Required.
	StoreURL string
	// DataURL, when set, names the domain store instead of StoreURL: the
	// business data then lives apart from the mrtr records, as a payment
	// provider does (fault tests cut the link to the mrtr store alone).
	DataURL string
	// Lease is the engine's claim lease (mrtr.Config.Lease; its default
	// if zero).
	Lease time.Duration
	// StoreTimeout bounds each mrtr store call (mrtr.Config.StoreTimeout;
	// its default if zero).
	StoreTimeout time.Duration
	// Ring seals requestState. Required; every instance of a fleet needs
	// the same ring.
	Ring *seal.Ring
	// Audience names the fleet; every instance needs the same. Required.
	Audience string
	// Instance names this process in logs and spans.
	Instance string
	// Version is the server version reported to clients ("dev" if empty).
	Version string
	// Logger receives structured logs (slog.Default() if nil).
	Logger *slog.Logger
	// SweepEvery is how often expired store records are swept
	// (store.DefaultSweepEvery if zero).
	SweepEvery time.Duration
	// SessionTimeout closes idle stateful sessions of older clients
	// (mrtr's default if zero).
	SessionTimeout time.Duration
	// ReadTimeout bounds reading a whole request, body included (30s if
	// zero): a client that sends its body slowly gets 408 and its
	// connection is closed then. The headers alone have at most 10s.
	ReadTimeout time.Duration
	// WriteTimeout bounds each write of an MCP reply or event stream
	// (mrtr.Handler moves the deadline forward at each write, so streams
	// and long rounds live on) and the whole response of the other pages
	// (30s if zero).
	WriteTimeout time.Duration
	// IdleTimeout closes a kept-alive connection that sends no request
	// (2m if zero).
	IdleTimeout time.Duration
	// MaxRequestBytes is the largest request body served (1 MiB if zero):
	// an MCP request of these tools (arguments, answers, a requestState
	// of a few KiB) needs far less. A larger one gets 413.
	MaxRequestBytes int64
	// ShutdownGrace is how long Serve waits for requests in flight when it
	// stops (10s if zero); connections still open then are closed.
	ShutdownGrace time.Duration
	// ClockOffset shifts the clock this instance seals and opens
	// requestState with (the seal codec's and the engine's) by the given
	// amount. It is a testing aid: an instance started with an offset
	// beyond a tool's TTL plus the codec's skew sees every continuation of
	// that tool as expired, which is how the multi-instance test proves
	// that expiry holds on every instance. The store's clock is not
	// shifted (its sweeper would otherwise delete records the other
	// instances still need). Never set it in production.
	ClockOffset time.Duration
	// EffectLog, when set, is a file every effect method run appends a
	// start and an end line to (domain.EffectLog), so that tests count
	// effects from the handler's side. A testing aid.
	EffectLog string
	// EffectDelay makes every effect method wait this long before it acts
	// (an effect slow enough to kill an instance during it). A testing aid.
	EffectDelay time.Duration
	// PublicURL is where users reach this server's pages
	// (mrtr.Config.PublicURL): connect_calendar sends them to the calendar
	// page under it. Empty: that tool's round fails until it is set.
	PublicURL string
	// DeployDelay is how long each step of deploy_release (the canary, the
	// promotion) takes; 0: none.
	DeployDelay time.Duration
	// ApprovalWebhook, when set, is a URL every approval notice is posted
	// to as JSON (approval.WebhookNotifier), besides the log.
	ApprovalWebhook string
	// ApprovalTick is how often the approval timers are looked at
	// (approval.DefaultTick if zero).
	ApprovalTick time.Duration
	// TaskStepTimeout and TaskRescueAfter tune the River executor of the
	// tasks where Backends has one (backends.TaskOptions); 0: its
	// defaults.
	TaskStepTimeout, TaskRescueAfter time.Duration
}

// App is a wired server.
type App struct {
	cfg    Config
	log    *slog.Logger
	probe  *effectProbe // nil unless EffectLog or EffectDelay is set
	Store  store.Store  // the mrtr store (round and effect records, continuations)
	Data   domain.Store // the business data of the example tools
	Engine *mrtr.Engine
	Server *mcp.Server
	Tasks  *tasks.Manager // the Tasks extension (tasks.go)
	// Approvals keeps the approvals of send_payout (approvals.go); nil
	// for a store without them.
	Approvals *approval.Service

	taskBackend *backends.Tasks
}

// New opens the stores (seeding the demo data where it is missing), builds
// the engine and registers every example tool and prompt.
func New(ctx context.Context, cfg Config) (*App, error) {
	switch {
	case cfg.Backends == nil:
		return nil, errors.New("app: Config.Backends is required")
	case cfg.StoreURL == "":
		return nil, errors.New("app: Config.StoreURL is required")
	case cfg.Ring == nil:
		return nil, errors.New("app: Config.Ring is required")
	case cfg.Audience == "":
		return nil, errors.New("app: Config.Audience is required")
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = 10 * time.Second
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = 30 * time.Second
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 30 * time.Second
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 2 * time.Minute
	}
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = 1 << 20
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if cfg.Instance != "" {
		log = log.With("instance", cfg.Instance)
	}
	a := &App{cfg: cfg, log: log}
	if err := a.openStores(ctx); err != nil {
		return nil, err
	}
	for _, step := range []func() error{a.newTasks, a.newEngine, a.newServer} {
		if err := step(); err != nil {
			a.Close()
			return nil, err
		}
	}
	return a, nil
}

// openStores opens the mrtr store and the domain store, and seeds the
// demo data; on an error nothing stays open.
func (a *App) openStores(ctx context.Context) error {
	var err error
	if a.Store, err = a.cfg.Backends.Store(ctx, a.cfg.StoreURL); err != nil {
		return err
	}
	dataURL := a.cfg.StoreURL
	if a.cfg.DataURL != "" {
		dataURL = a.cfg.DataURL
	}
	if a.Data, err = a.cfg.Backends.Data(ctx, dataURL); err != nil {
		a.Store.Close()
		return err
	}
	if err := domain.Seed(ctx, a.Data); err != nil {
		a.Close()
		return err
	}
	return nil
}

// newEngine builds the engine on the mrtr store.
func (a *App) newEngine() error {
	now := time.Now
	if off := a.cfg.ClockOffset; off != 0 {
		now = func() time.Time { return time.Now().Add(off) }
		a.log.Warn("TESTING: this instance's requestState clock is shifted; do not use in production", "offset", off)
	}
	codec := seal.New(a.cfg.Ring, seal.Options{Now: now})
	if err := a.newApprovals(codec); err != nil {
		return err
	}
	var err error
	a.Engine, err = mrtr.NewEngine(mrtr.Config{
		Audience:     a.cfg.Audience,
		Codec:        codec,
		Approvals:    a.Approvals,
		Store:        a.Store,
		Instance:     a.cfg.Instance,
		Logger:       a.log,
		Lease:        a.cfg.Lease,
		StoreTimeout: a.cfg.StoreTimeout,
		PublicURL:    a.cfg.PublicURL,
		Authenticate: authenticate,
		Tasks:        a.Tasks,
	})
	if err == nil {
		// Said once, so an operator reading the logs knows what the store
		// holds of a waiting workflow's sensitive values: ciphertext.
		a.log.Info("continuation records of waiting workflows are sealed at rest (AES-256-GCM, bound to each record)",
			"sealing_key", a.cfg.Ring.SealingKeyID())
	}
	return err
}

// newServer builds the MCP server and registers every example tool and
// prompt on it, their effects probed when the config says so.
func (a *App) newServer() error {
	cfg, log := a.cfg, a.log
	a.Server = mcp.NewServer(&mcp.Implementation{Name: Name, Title: "mrtrgen examples", Version: cfg.Version}, &mcp.ServerOptions{
		Instructions: "Multi-round example tools generated by mrtrgen: close_support_ticket, delete_customer, charge_payment, " +
			"provision_workspace, cancel_subscription (pick a customer among those found by name), approve_deployment " +
			"(pick among the services changed since the last release), refund_order (a manager approves refunds above 500.00), " +
			"roll_out_release (a change ticket that does not cover the release is asked for again), " +
			"connect_calendar (the user grants access on a page the client opens: URL-mode elicitation; needs a signed-in user), deploy_release (a long deployment that runs as a task when the client has the tasks extension, asking mid-way whether to promote), the resource services://{service}/status (asks how much to show), and the fixtures of the MCP conformance suite (test_*). They ask for what they need " +
			"with input_required results (MCP 2026-07-28) and never repeat a side effect.",
		// The SDK logs every stateless request's session at info: only at debug.
		Logger: slog.New(&quietHandler{Handler: log.Handler()}),
		// completion/complete from the completions the specs declare.
		CompletionHandler: a.Engine.Complete,
	})
	if cfg.EffectLog != "" || cfg.EffectDelay > 0 {
		var err error
		if a.probe, err = newEffectProbe(cfg.EffectLog, cfg.Instance, cfg.EffectDelay); err != nil {
			return err
		}
		log.Warn("TESTING: effects are probed; do not use in production", "effect_log", cfg.EffectLog, "effect_delay", cfg.EffectDelay)
	}
	hs := handlers{
		tickets:       &tickets.CloseSupportTicketImpl{Data: a.Data},
		customers:     &customers.DeleteCustomerImpl{Data: a.Data},
		payments:      &payments.ChargePaymentImpl{Data: a.Data},
		onboarding:    &onboarding.ProvisionWorkspaceImpl{Data: a.Data},
		subscriptions: &subscriptions.CancelSubscriptionImpl{Data: a.Data},
		releases:      &releases.ApproveDeploymentImpl{Data: a.Data},
		refunds:       &refunds.RefundOrderImpl{Data: a.Data},
		rollouts:      &rollouts.RollOutReleaseImpl{Data: a.Data},
		calendars:     &calendars.ConnectCalendarImpl{Data: a.Data},
		deployments:   &deployments.DeployReleaseImpl{Data: a.Data, Delay: cfg.DeployDelay},
	}
	if a.probe != nil {
		hs = a.probe.wrap(hs)
	}
	tickets.RegisterAll(a.Server, a.Engine, hs.tickets)
	customers.RegisterAll(a.Server, a.Engine, hs.customers)
	payments.RegisterAll(a.Server, a.Engine, hs.payments)
	onboarding.RegisterAll(a.Server, a.Engine, hs.onboarding)
	subscriptions.RegisterAll(a.Server, a.Engine, hs.subscriptions)
	releases.RegisterAll(a.Server, a.Engine, hs.releases)
	refunds.RegisterAll(a.Server, a.Engine, hs.refunds)
	rollouts.RegisterAll(a.Server, a.Engine, hs.rollouts)
	calendars.RegisterAll(a.Server, a.Engine, hs.calendars)
	status.RegisterAll(a.Server, a.Engine, &status.ServiceStatusImpl{Data: a.Data})
	conformance.Register(a.Server, a.Engine)
	conformanceprogress.RegisterAll(a.Server, a.Engine, &conformanceprogress.TestToolWithProgressImpl{})
	return a.registerTasks(hs.deployments) // tasks.go
}

// Handler serves MCP at /mcp and a readiness probe at /healthz (200 when
// the domain store answers). No request body is read past
// Config.MaxRequestBytes.
func (a *App) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(MCPPath, mrtr.Handler(a.Server, &mrtr.HandlerOptions{SessionTimeout: a.cfg.SessionTimeout, MaxRequestBytes: a.cfg.MaxRequestBytes}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if _, _, err := a.Data.Get(ctx, "healthz"); err != nil {
			a.log.WarnContext(ctx, "health check failed", "error", err)
			http.Error(w, "store unavailable", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	if a.Approvals != nil {
		mux.Handle(ApprovalsPath+"/", a.approvalsHandler())
	}
	mux.HandleFunc("GET "+CalendarPagePath+"{workflow}", a.calendarPageHandler)
	mux.HandleFunc("POST "+CalendarPagePath+"{workflow}", a.calendarPageHandler)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s: MCP endpoint at %s (instance %s)\n", Name, MCPPath, a.cfg.Instance)
	})
	return a.logRequests(http.MaxBytesHandler(mux, a.cfg.MaxRequestBytes))
}

// Serve serves HTTP on ln, and sweeps expired store records, until ctx is
// done; then it stops accepting connections, waits up to ShutdownGrace for
// requests in flight and for outcomes the engine still has to record
// (Engine.Drain), and returns. It does not close the stores (Close).
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	sweepCtx, stopSweeper := context.WithCancel(context.WithoutCancel(ctx))
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		store.RunSweeper(sweepCtx, a.Store, a.cfg.SweepEvery, func(err error) {
			a.log.Warn("sweeping expired records failed", "error", err)
		})
	}()
	defer func() {
		stopSweeper()
		<-swept
	}()
	if a.Approvals != nil {
		// Reminders, escalations, deadlines and notices of approvals, on
		// every instance (each fires a timer once, whichever gets it).
		timersCtx, stopTimers := context.WithCancel(context.WithoutCancel(ctx))
		timers := make(chan struct{})
		go func() {
			defer close(timers)
			_ = a.Approvals.Run(timersCtx)
		}()
		defer func() {
			stopTimers()
			<-timers
		}()
	}

	reqCtx, cancelRequests := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRequests()
	var inFlight atomic.Int64 // requests other than event streams (GET)
	handler := a.Handler()
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet {
				inFlight.Add(1)
				defer inFlight.Add(-1)
			}
			handler.ServeHTTP(w, r)
		}),
		// Every timeout set: without them a client holds a connection, and
		// a goroutine, as long as it likes (sending its body a byte at a
		// time, say). mrtr.Handler documents what each means for MCP.
		ReadHeaderTimeout: min(10*time.Second, a.cfg.ReadTimeout),
		ReadTimeout:       a.cfg.ReadTimeout,
		WriteTimeout:      a.cfg.WriteTimeout,
		IdleTimeout:       a.cfg.IdleTimeout,
		BaseContext:       func(net.Listener) context.Context { return reqCtx },
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	a.log.Info("serving MCP", "url", "http://"+ln.Addr().String()+MCPPath, "audience", a.cfg.Audience,
		"store", redactedStore(a.cfg.StoreURL), "keys", a.cfg.Ring.KeyIDs())

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Stop accepting connections; let the requests in flight (tool calls,
	// rounds) finish within the grace period; then end what is left, the
	// event streams older clients keep open in particular.
	a.log.Info("shutting down", "grace", a.cfg.ShutdownGrace, "in_flight", inFlight.Load())
	sctx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownGrace)
	defer cancel()
	shutdown := make(chan error, 1)
	go func() { shutdown <- srv.Shutdown(sctx) }()
	for inFlight.Load() > 0 && sctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	cancelRequests()
	err := <-shutdown
	if err != nil {
		a.log.Warn("grace period over; closing the remaining connections", "error", err, "in_flight", inFlight.Load())
		err = srv.Close()
	}
	// After Shutdown or Close, Serve returns http.ErrServerClosed; anything
	// else is an error of its own.
	if serr := <-served; err == nil && !errors.Is(serr, http.ErrServerClosed) {
		err = serr
	}
	// Outcomes of effects that returned while the store was unreachable are
	// still being recorded: exiting now would leave them to be taken over,
	// and run again, by a retry.
	dctx, dcancel := context.WithTimeout(context.Background(), a.cfg.ShutdownGrace)
	defer dcancel()
	if derr := a.Engine.Drain(dctx); derr != nil {
		a.log.Warn("stopping with effect outcomes not yet recorded; retries will take them over", "error", derr)
	}
	a.log.Info("stopped")
	return err
}

// Close closes the stores.
func (a *App) Close() error {
	var errs []error
	errs = append(errs, a.closeTasks(a.cfg.ShutdownGrace))
	if a.probe != nil {
		errs = append(errs, a.probe.close())
	}
	if a.Data != nil {
		errs = append(errs, a.Data.Close())
	}
	if a.Store != nil {
		errs = append(errs, a.Store.Close())
	}
	return errors.Join(errs...)
}

// redactedStore returns the store URL fit for logs: its password, if any,
// masked.
func redactedStore(u string) string {
	scheme, _, _ := strings.Cut(u, ":")
	switch strings.ToLower(scheme) {
	case "memory", "sqlite", "sqlite3":
		return u
	}
	p, err := url.Parse(u)
	if err != nil {
		return scheme + ":…"
	}
	return p.Redacted()
}

// logRequests logs one debug record per HTTP request (its MCP method, tool
// or prompt name and protocol version) and a warning for server errors.
// 2026-07-28 clients name the method in headers; older ones only in the
// JSON-RPC body, which is read from then (the handler gets it back whole).
func (a *App) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		mcpMethod, mcpName := r.Header.Get("Mcp-Method"), r.Header.Get("Mcp-Name")
		if mcpMethod == "" && r.Method == http.MethodPost && r.Body != nil && a.log.Enabled(r.Context(), slog.LevelDebug) {
			head, _ := io.ReadAll(io.LimitReader(r.Body, maxLoggedBody))
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
			mcpMethod, mcpName = rpcNames(head)
		}
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		level := slog.LevelDebug
		if rec.status >= 500 {
			level = slog.LevelWarn
		}
		a.log.Log(r.Context(), level, "http request",
			"method", r.Method, "path", r.URL.Path, "status", rec.status,
			"mcp_method", mcpMethod, "mcp_name", mcpName,
			"protocol", r.Header.Get("Mcp-Protocol-Version"), "session", r.Header.Get("Mcp-Session-Id") != "",
			"duration", time.Since(start))
	})
}

// maxLoggedBody bounds what logRequests reads of a body to name its method.
const maxLoggedBody = 64 << 10

// rpcNames returns the method and the tool or prompt name of a JSON-RPC
// request body ("" for what it cannot read, a batch for instance).
func rpcNames(body []byte) (method, name string) {
	var req struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil {
		return "", ""
	}
	return req.Method, req.Params.Name
}

// statusRecorder remembers the status code; Unwrap lets
// http.ResponseController reach the real writer (flushing event streams).
type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (s *statusRecorder) WriteHeader(code int) {
	if !s.wrote {
		s.status, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	s.wrote = true
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// quietHandler passes the SDK's records at warning and above, and all of
// them when the underlying handler logs debug records.
type quietHandler struct{ slog.Handler }

func (h *quietHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.Handler.Enabled(ctx, l) && (l >= slog.LevelWarn || h.Handler.Enabled(ctx, slog.LevelDebug))
}

func (h *quietHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &quietHandler{h.Handler.WithAttrs(attrs)}
}

func (h *quietHandler) WithGroup(name string) slog.Handler {
	return &quietHandler{h.Handler.WithGroup(name)}
}
