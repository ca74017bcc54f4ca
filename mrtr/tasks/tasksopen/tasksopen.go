// Package tasksopen opens the task store and the executor that go with a
// store URL (the forms of storeopen), for servers configured by a flag or
// a file: every instance given the same URL shares its tasks, and where
// the database can hold a job queue, the steps of those tasks run on River
// and survive the instance that ran them.
//
//	postgres://… postgresql://…  pgtasks, and River on the same database
//	sqlite:PATH                  sqlitetasks, and River in the same file
//	redis://… rediss://…         redistasks; steps run in the instance that
//	                             enqueued them (tasks.InProcess)
//	memory:, sqlite::memory:     the Manager's memory store and InProcess
//
// With River a step whose instance dies is run again by another (at least
// once; its effects are protected by their claims); with InProcess the
// task stays in the shared store, answerable everywhere, but a step cut
// off by a crash runs again only when a later tasks/update enqueues it.
// The query parameter mrtr_prefix (storeopen.PrefixParam) sets the table
// or key prefix and names the River queue ("<prefix>tasks").
//
// Like storeopen, it links every backend; a server that uses one imports
// that backend's packages instead.
package tasksopen

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mrtrgen/mrtrgen/mrtr/store/storeopen"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/pgtasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/redistasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/rivertasks"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks/sqlitetasks"
)

// Options tune what Open opens.
type Options struct {
	// River configures the executor where there is one (its Queue is
	// "<prefix>tasks" unless set).
	River rivertasks.Options
	// Now is the task stores' clock (tests); nil: time.Now.
	Now func() time.Time
}

// Backend is what a tasks.Config needs of a store URL.
type Backend struct {
	// Store is nil for memory: (the Manager's own MemoryStore).
	Store tasks.Store
	// Executor is nil where steps run in process (tasks.InProcess).
	Executor tasks.Executor
	// Name says what was opened: "postgres+river", "sqlite+river",
	// "redis", "memory".
	Name   string
	closes []func() error
}

// Durable reports whether a step survives the instance that runs it.
func (b *Backend) Durable() bool { return b.Executor != nil }

// Close closes what Open opened. Stop the Manager (tasks.Manager.Close,
// which stops the executor) first.
func (b *Backend) Close() error {
	var errs []error
	for i := len(b.closes) - 1; i >= 0; i-- {
		errs = append(errs, b.closes[i]())
	}
	return errors.Join(errs...)
}

// Open opens the backend of store URL u.
func Open(ctx context.Context, u string, opts Options) (*Backend, error) {
	scheme, rest, ok := strings.Cut(u, ":")
	if !ok {
		return nil, fmt.Errorf("tasksopen: store URL has no scheme; want one of %s", storeopen.Forms)
	}
	switch strings.ToLower(scheme) {
	case "memory":
		return &Backend{Name: "memory"}, nil
	case "sqlite", "sqlite3":
		path := strings.TrimPrefix(rest, "//")
		if path == "" {
			return nil, errors.New("tasksopen: sqlite: needs a path (sqlite:PATH or sqlite::memory:)")
		}
		if path == sqlitetasks.MemoryPath {
			return &Backend{Name: "memory"}, nil
		}
		return openSQLite(ctx, path, opts)
	case "postgres", "postgresql":
		clean, prefix, err := storeopen.TakePrefix(u)
		if err != nil {
			return nil, err
		}
		return openPostgres(ctx, clean, prefix, opts)
	case "redis", "rediss":
		clean, prefix, err := storeopen.TakePrefix(u)
		if err != nil {
			return nil, err
		}
		st, err := redistasks.Open(ctx, clean, redistasks.Options{KeyPrefix: prefix, Now: opts.Now})
		if err != nil {
			return nil, err
		}
		return &Backend{Store: st, Name: "redis", closes: []func() error{st.Close}}, nil
	}
	return nil, fmt.Errorf("tasksopen: unsupported store URL scheme; want one of %s", storeopen.Forms)
}

func openPostgres(ctx context.Context, u, prefix string, opts Options) (*Backend, error) {
	pool, err := pgxpool.New(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("tasksopen: connecting to PostgreSQL: %w", err)
	}
	b := &Backend{Name: "postgres+river", closes: []func() error{func() error { pool.Close(); return nil }}}
	st, err := pgtasks.New(ctx, pool, pgtasks.Options{TablePrefix: prefix, Now: opts.Now})
	if err != nil {
		_ = b.Close()
		return nil, err
	}
	b.Store = st
	ex, err := rivertasks.NewPostgres(pool, riverOptions(opts.River, prefix))
	if err != nil {
		_ = b.Close()
		return nil, err
	}
	b.Executor = ex
	return b, nil
}

func openSQLite(ctx context.Context, path string, opts Options) (*Backend, error) {
	st, err := sqlitetasks.Open(ctx, path, sqlitetasks.Options{Now: opts.Now})
	if err != nil {
		return nil, err
	}
	b := &Backend{Store: st, Name: "sqlite+river", closes: []func() error{st.Close}}
	// River wants its own single-connection handle on the file (see
	// rivertasks.OpenSQLite); the three pools queue on SQLite's lock.
	db, err := rivertasks.OpenSQLite(path)
	if err != nil {
		_ = b.Close()
		return nil, err
	}
	b.closes = append(b.closes, db.Close)
	ex, err := rivertasks.NewSQLite(db, riverOptions(opts.River, ""))
	if err != nil {
		_ = b.Close()
		return nil, err
	}
	b.Executor = ex
	return b, nil
}

// notQueueChar is what a River queue name may not hold.
var notQueueChar = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

func riverOptions(o rivertasks.Options, prefix string) rivertasks.Options {
	if o.Queue == "" && prefix != "" {
		o.Queue = notQueueChar.ReplaceAllString(prefix, "_") + "tasks"
	}
	return o
}
