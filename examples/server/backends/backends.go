// Package backends opens what a store URL names for the example server: the
// mrtr store, the example's business data and the task backend.
//
// Embedded (this package) opens memory: and sqlite:PATH and links SQLite
// alone: it is what `go run ./examples/server -dev`, the quick start,
// compiles. allstores.Set adds PostgreSQL, Redis and River (durable task
// steps), which a fleet needs and which take most of a fresh build's time
// (docs/benchmarks.md, "First run"); the command examples/server/fleet
// links it.
package backends

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domainsqlite"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/sqlitestore"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/sqlitetasks"
)

// Set opens the stores of the store URLs it knows.
type Set struct {
	// Build names the build that links this set in messages ("embedded",
	// "fleet").
	Build string
	// Forms lists the store URL forms the set opens.
	Forms string
	// River says whether task steps may run on River (the executor's
	// flags, -task-step-timeout and -task-rescue-after, apply).
	River bool
	// Store opens the mrtr store (round and effect records,
	// continuations).
	Store func(ctx context.Context, u string) (store.Store, error)
	// Data opens the example's business data beside it.
	Data func(ctx context.Context, u string) (domain.Store, error)
	// Tasks opens the task store and executor.
	Tasks func(ctx context.Context, u string, opts TaskOptions) (*Tasks, error)
}

// TaskOptions tune the River executor where there is one.
type TaskOptions struct {
	Logger *slog.Logger
	// StepTimeout and RescueAfter: rivertasks.Options.JobTimeout and
	// RescueAfter; 0: River's defaults.
	StepTimeout, RescueAfter time.Duration
}

// Tasks is what a tasks.Config needs of a store URL.
type Tasks struct {
	// Store is nil for the Manager's own memory store.
	Store tasks.Store
	// Executor is nil where steps run in the instance that enqueued them
	// (tasks.InProcess).
	Executor tasks.Executor
	// Name says what was opened ("postgres+river", "sqlite", "memory", …).
	Name string
	// Closer closes what was opened; nil: nothing.
	Closer func() error
}

// Close closes what was opened. Stop the Manager (tasks.Manager.Close,
// which stops the executor) first.
func (t *Tasks) Close() error {
	if t.Closer == nil {
		return nil
	}
	return t.Closer()
}

// Durable reports whether a step survives the instance that runs it.
func (t *Tasks) Durable() bool { return t.Executor != nil }

// EmbeddedForms are the store URLs Embedded opens.
const EmbeddedForms = "memory:, sqlite:PATH, sqlite::memory:"

// FleetCommand is the command that links every store.
const FleetCommand = "go run ./examples/server/fleet"

// Embedded opens the stores that live in the process or in a local file:
// memory: and sqlite:PATH. On a SQLite file the tasks are shared by every
// process on that file, their steps run in the instance that enqueued them
// (no River: a step cut off by a crash runs again only when a later
// tasks/update enqueues it). Any other URL is refused with the command that
// opens it.
var Embedded = Set{
	Build: "embedded",
	Forms: EmbeddedForms,
	Store: func(ctx context.Context, u string) (store.Store, error) {
		path, err := embeddedPath(u)
		switch {
		case err != nil:
			return nil, err
		case path == "":
			return store.NewMemory(store.Options{}), nil
		}
		return sqlitestore.Open(ctx, path, sqlitestore.Options{})
	},
	Data: func(ctx context.Context, u string) (domain.Store, error) {
		path, err := embeddedPath(u)
		switch {
		case err != nil:
			return nil, err
		case path == "":
			return domain.NewMemory(), nil
		}
		return domainsqlite.Open(ctx, path)
	},
	Tasks: func(ctx context.Context, u string, _ TaskOptions) (*Tasks, error) {
		path, err := embeddedPath(u)
		switch {
		case err != nil:
			return nil, err
		case path == "" || path == sqlitetasks.MemoryPath:
			return &Tasks{Name: "memory"}, nil
		}
		st, err := sqlitetasks.Open(ctx, path, sqlitetasks.Options{})
		if err != nil {
			return nil, err
		}
		return &Tasks{Store: st, Name: "sqlite", Closer: st.Close}, nil
	},
}

// embeddedPath returns the SQLite path of u, "" for memory:, and an error
// naming the fleet build for a URL of another store.
func embeddedPath(u string) (string, error) {
	scheme, rest, ok := strings.Cut(u, ":")
	if !ok {
		return "", fmt.Errorf("store URL has no scheme; want one of %s", EmbeddedForms)
	}
	switch strings.ToLower(scheme) {
	case "memory":
		if rest != "" && rest != "//" {
			return "", fmt.Errorf("want exactly \"memory:\", got memory:%s", rest)
		}
		return "", nil
	case "sqlite", "sqlite3":
		path := strings.TrimPrefix(rest, "//")
		if path == "" {
			return "", errors.New("sqlite: needs a path (sqlite:PATH or sqlite::memory:)")
		}
		return path, nil
	case "postgres", "postgresql", "redis", "rediss":
		// Name only the scheme: the rest may hold a password.
		return "", fmt.Errorf("%s: store is not linked into this build, which opens the embedded stores only (%s); "+
			"PostgreSQL, Redis and durable tasks on River are in the fleet build: %s -store …", scheme, EmbeddedForms, FleetCommand)
	}
	if len(scheme) > 20 || strings.ContainsAny(scheme, "/@ ") {
		scheme = scheme[:min(len(scheme), 20)] + "…"
	}
	return "", fmt.Errorf("unsupported store URL scheme %q; want one of %s (or, in the fleet build, postgres://…, redis://…)", scheme, EmbeddedForms)
}
