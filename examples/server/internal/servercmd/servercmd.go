// Package servercmd is the command line of the example server, shared by
// its two builds: examples/server (the quick start: memory: and
// sqlite:PATH, SQLite alone linked) and examples/server/fleet (every store
// and River). Flags fall back to environment variables: -addr MRTR_ADDR,
// -store MRTR_STORE, -instance MRTR_INSTANCE, -audience MRTR_AUDIENCE, -dev
// MRTR_DEV, -log-level MRTR_LOG_LEVEL, -log-format MRTR_LOG_FORMAT, -data
// MRTR_DATA, -lease MRTR_LEASE, -store-timeout MRTR_STORE_TIMEOUT, and in
// the fleet build -task-step-timeout MRTR_TASK_STEP_TIMEOUT,
// -task-rescue-after MRTR_TASK_RESCUE_AFTER. Keys come from MRTR_KEYS or
// MRTR_KEYS_FILE only. -time-offset, -effect-log and -effect-delay (no
// variables) are testing aids: they shift the instance's requestState
// clock, log every effect run to a file and slow every effect down.
package servercmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mrtrgen/mrtrgen/examples/server/app"
	"github.com/mrtrgen/mrtrgen/examples/server/backends"
	"github.com/mrtrgen/mrtrgen/mrtr/seal"
)

// Run runs the server with args (without the command name) on the stores
// of set, and returns the exit code: 0, 1 when it cannot serve, 2 for bad
// flags or keys.
func Run(args []string, stdout, stderr io.Writer, set *backends.Set) int {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	host, _ := os.Hostname()
	addr := fs.String("addr", env("MRTR_ADDR", "127.0.0.1:8080"), "listen address (port 0: any free port, logged at startup)")
	storeURL := fs.String("store", env("MRTR_STORE", "sqlite:mrtr-example.db"), "store URL, one of "+set.Forms)
	instance := fs.String("instance", env("MRTR_INSTANCE", fmt.Sprintf("%s-%d", host, os.Getpid())), "name of this instance in logs and spans")
	audience := fs.String("audience", env("MRTR_AUDIENCE", "mrtrgen-example"), "name of the fleet; all instances must share it (and the keys)")
	dev := fs.Bool("dev", envBool("MRTR_DEV"), "development: without MRTR_KEYS/MRTR_KEYS_FILE, seal with an ephemeral key")
	genkey := fs.Bool("genkey", false, "print a new key ring entry for MRTR_KEYS and exit")
	logLevel := fs.String("log-level", env("MRTR_LOG_LEVEL", "info"), "debug, info, warn or error")
	logFormat := fs.String("log-format", env("MRTR_LOG_FORMAT", "text"), "text or json")
	dataURL := fs.String("data", env("MRTR_DATA", ""), "store URL of the example's business data, if not the -store one (same forms)")
	lease := fs.Duration("lease", envDuration("MRTR_LEASE"), "how long a round or effect claim blocks duplicates before another instance may take it over (0: the engine's default, 30s)")
	storeTimeout := fs.Duration("store-timeout", envDuration("MRTR_STORE_TIMEOUT"), "bound of each mrtr store call; a round whose store call times out gets a retryable error (0: the engine's default, 5s)")
	effectLog := fs.String("effect-log", "", "testing aid: append a line to this file when an effect starts and when it returns (instances may share it)")
	effectDelay := fs.Duration("effect-delay", 0, "testing aid: make every effect wait this long before it acts; never in production")
	timeOffset := fs.Duration("time-offset", 0, "testing aid: shift the clock that seals and opens requestState (e.g. 1h makes every continuation look expired); never in production")
	stepTimeout, rescueAfter := riverFlags(fs, set)
	approvalWebhook := fs.String("approval-webhook", env("MRTR_APPROVAL_WEBHOOK", ""), "a URL every approval notice (request, reminder, decision, expiry) is posted to as JSON, besides the log")
	approvalTick := fs.Duration("approval-tick", envDuration("MRTR_APPROVAL_TICK"), "how often approval timers (reminders, deadlines, notices) are looked at (0: 5s)")
	publicURL := fs.String("public-url", env("MRTR_PUBLIC_URL", ""), "where users reach this server's pages (the calendar page of connect_calendar); default http://<the address it listens on>")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "server: unexpected arguments %q\n", fs.Args())
		return 2
	}

	if *genkey {
		spec, err := seal.GenerateKeySpec(uint32(time.Now().Unix()))
		if err != nil {
			fmt.Fprintln(stderr, "server:", err)
			return 1
		}
		fmt.Fprintln(stdout, spec)
		return 0
	}

	log, err := newLogger(stderr, *logLevel, *logFormat)
	if err != nil {
		fmt.Fprintln(stderr, "server:", err)
		return 2
	}
	ring, code := keys(*dev, stderr)
	if ring == nil {
		return code
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Error("cannot listen", "addr", *addr, "error", err)
		return 1
	}
	defer ln.Close()
	if *publicURL == "" {
		*publicURL = "http://" + ln.Addr().String()
	}
	a, err := app.New(ctx, app.Config{
		Backends: set, StoreURL: *storeURL, Ring: ring, Audience: *audience, Instance: *instance, Logger: log,
		ClockOffset: *timeOffset, DataURL: *dataURL, Lease: *lease, StoreTimeout: *storeTimeout,
		EffectLog: *effectLog, EffectDelay: *effectDelay, PublicURL: *publicURL, TaskStepTimeout: *stepTimeout, TaskRescueAfter: *rescueAfter,
		ApprovalWebhook: *approvalWebhook, ApprovalTick: *approvalTick,
	})
	if err != nil {
		log.Error("cannot start", "error", err)
		return 1
	}
	defer a.Close()
	go func() {
		<-ctx.Done()
		stop() // a second signal kills at once
	}()
	if err := a.Serve(ctx, ln); err != nil {
		log.Error("serving failed", "error", err)
		return 1
	}
	return 0
}

// keys loads the key ring from MRTR_KEYS or MRTR_KEYS_FILE; without either,
// -dev generates an ephemeral one (loudly) and otherwise the server refuses
// to start.
func keys(dev bool, stderr io.Writer) (*seal.Ring, int) {
	ring, err := seal.RingFromEnv()
	if err == nil {
		return ring, 0
	}
	if strings.TrimSpace(os.Getenv(seal.EnvKeys)) != "" || strings.TrimSpace(os.Getenv(seal.EnvKeysFile)) != "" {
		fmt.Fprintln(stderr, "server:", err)
		return nil, 2
	}
	if !dev {
		fmt.Fprintf(stderr, `server: no requestState key configured.

Multi-round tools seal their continuation with a key that every instance
of the server must share. Create one and pass it in the environment:

    export %s="$(go run ./examples/server -genkey)"

(or put one such line per key in a file named by %s), or run with -dev
for local development with a throwaway key.
`, seal.EnvKeys, seal.EnvKeysFile)
		return nil, 2
	}
	ring, err = seal.EphemeralRing(func(msg string) {
		bar := strings.Repeat("=", 78)
		fmt.Fprintf(stderr, "%s\nDEVELOPMENT MODE (-dev)\n%s\n%s\n", bar, msg, bar)
	})
	if err != nil {
		fmt.Fprintln(stderr, "server:", err)
		return nil, 1
	}
	return ring, 0
}

func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("-log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, errors.New(`-log-format: want "text" or "json"`)
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// envDuration reads a duration variable; an invalid one counts as unset
// (flag parsing then takes over).
func envDuration(name string) time.Duration {
	d, _ := time.ParseDuration(os.Getenv(name))
	return d
}

func envBool(name string) bool {
	b, _ := strconv.ParseBool(os.Getenv(name))
	return b
}

// riverFlags declares the River executor's flags, which exist only in the
// build that links River (zero durations otherwise).
func riverFlags(fs *flag.FlagSet, set *backends.Set) (stepTimeout, rescueAfter *time.Duration) {
	stepTimeout, rescueAfter = new(time.Duration), new(time.Duration)
	if set.River {
		fs.DurationVar(stepTimeout, "task-step-timeout", envDuration("MRTR_TASK_STEP_TIMEOUT"), "how long one step of a task may run on River before it is run again (0: River executor's default, 5m)")
		fs.DurationVar(rescueAfter, "task-rescue-after", envDuration("MRTR_TASK_RESCUE_AFTER"), "how long a task step may run on River before another instance takes it for stuck (its instance died) and runs it again; more than -task-step-timeout (0: the step timeout + 1m)")
	}
	return stepTimeout, rescueAfter
}
