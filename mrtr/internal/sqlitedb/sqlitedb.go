// Package sqlitedb is what mrtr's SQLite stores (mrtr/store/sqlitestore,
// mrtr/tasks/sqlitetasks) share: the rule for table prefixes, opening a
// database as one write connection and a read pool, and creating a schema
// when several processes open a new file at once.
package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"modernc.org/sqlite" // also registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"
)

// MemoryPath opens a private in-memory database (gone on Close).
const MemoryPath = ":memory:"

// DefaultTablePrefix is the table prefix of both stores when their
// options name none: their tables (mrtr_ops, mrtr_states, mrtr_tasks) can
// share a file.
const DefaultTablePrefix = "mrtr_"

// SweepBatch bounds how many rows one sweeping statement deletes, so the
// write lock is never held for long.
const SweepBatch = 1000

// Defaults fills in the options both stores share where they are unset
// (the table prefix, BusyTimeout 10s, ReadConns 4) and checks the prefix.
func Defaults(prefix *string, busyTimeout *time.Duration, readConns *int) error {
	if *prefix == "" {
		*prefix = DefaultTablePrefix
	}
	if err := CheckPrefix(*prefix); err != nil {
		return err
	}
	if *busyTimeout <= 0 {
		*busyTimeout = 10 * time.Second
	}
	if *readConns <= 0 {
		*readConns = 4
	}
	return nil
}

var validPrefix = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,40}$`)

// CheckPrefix reports whether prefix may start table and index names:
// letters, digits and underscores, starting with a letter or an
// underscore, at most 41 characters. The prefix is spliced into SQL text,
// so nothing else is allowed.
func CheckPrefix(prefix string) error {
	if !validPrefix.MatchString(prefix) {
		return fmt.Errorf("invalid table prefix %q (want [A-Za-z_][A-Za-z0-9_]*, at most 41 characters)", prefix)
	}
	return nil
}

// Open opens the database at path, or a private in-memory one for
// MemoryPath, as w, exactly one connection through which every write goes
// (in-process writers queue on it rather than spin in SQLite's busy
// handler; its transactions are BEGIN IMMEDIATE), and r, a pool of
// readConns query-only connections. A file database runs in WAL mode with
// synchronous(FULL): a commit reported to the caller survives power loss.
// For MemoryPath, r is w: every connection to ":memory:" is a database of
// its own, so the one connection is kept forever.
func Open(path string, busyTimeout time.Duration, readConns int) (w, r *sql.DB, err error) {
	switch {
	case path == "":
		return nil, nil, errors.New("empty database path")
	case strings.ContainsRune(path, '?'):
		return nil, nil, fmt.Errorf("database path %q must not contain '?'", path)
	case strings.HasPrefix(path, "file:"):
		return nil, nil, fmt.Errorf("want a file path or %q, not a URI (%q)", MemoryPath, path)
	}
	busy := fmt.Sprintf("_pragma=busy_timeout(%d)", busyTimeout.Milliseconds())
	if path == MemoryPath {
		w, err = sql.Open("sqlite", path+"?_txlock=immediate&"+busy)
		if err != nil {
			return nil, nil, err
		}
		w.SetMaxOpenConns(1)
		w.SetMaxIdleConns(1)
		w.SetConnMaxLifetime(0)
		w.SetConnMaxIdleTime(0)
		return w, w, nil
	}
	w, err = sql.Open("sqlite", path+"?_txlock=immediate&"+busy+
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)")
	if err != nil {
		return nil, nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	r, err = sql.Open("sqlite", path+"?"+busy+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, nil, err
	}
	r.SetMaxOpenConns(readConns)
	r.SetMaxIdleConns(readConns)
	return w, r, nil
}

// CreateSchema runs stmts (CREATE … IF NOT EXISTS) in one transaction on
// db, waiting out SQLITE_BUSY for up to busyTimeout: when processes open a
// new database file at once, switching it to WAL takes a lock for which
// SQLite does not call its busy handler, so busy_timeout alone does not
// cover it.
func CreateSchema(ctx context.Context, db *sql.DB, busyTimeout time.Duration, stmts []string) error {
	deadline := time.Now().Add(busyTimeout)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		err := createSchema(ctx, db, stmts)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

func createSchema(ctx context.Context, db *sql.DB, stmts []string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// isBusy reports whether err is SQLITE_BUSY (of any extended code).
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// Preparer prepares the statements of a store one after the other, until
// one fails: after the first failure it prepares nothing and Err is that
// failure.
type Preparer struct {
	ctx context.Context
	err error
}

// NewPreparer returns a Preparer that prepares in ctx.
func NewPreparer(ctx context.Context) *Preparer { return &Preparer{ctx: ctx} }

// Prepare prepares q on db, or returns nil after an earlier failure or
// when q fails.
func (p *Preparer) Prepare(db *sql.DB, q string) *sql.Stmt {
	if p.err != nil {
		return nil
	}
	st, err := db.PrepareContext(p.ctx, q)
	if err != nil {
		p.err = err
		return nil
	}
	return st
}

// Err is the first failure of Prepare, or nil.
func (p *Preparer) Err() error { return p.err }
