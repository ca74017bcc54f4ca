// Package sqlitetasks is a tasks.Store on SQLite (modernc.org/sqlite, pure
// Go): every instance and process that opens the same file sees the same
// tasks, and a task outlives the process that created it. One file can
// hold sqlitestore's tables, the tasks and a job queue's tables: see New.
//
// Schema (created by Open and New if missing; prefix from
// Options.TablePrefix, default "mrtr_"; times are Unix nanoseconds):
//
//	mrtr_tasks(id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL, data BLOB NOT NULL) STRICT
//
// plus an index on expires_at. data is the tasks.Record as JSON; expires_at
// is its ExpiresAt. A row is live strictly before expires_at; a row past it
// is invisible to Get and Update, Create replaces it, and Sweep deletes it.
//
// Atomicity: Update is one transaction that holds the database write lock
// from its first statement, which locks and reads the row (UPDATE …
// RETURNING), through fn, which runs once, to the write of the result and
// COMMIT. Concurrent Updates from any goroutine or process take turns on
// that lock, so none is lost. Create is one INSERT … ON CONFLICT statement:
// of concurrent Creates of one id exactly one succeeds.
//
// Cost: there is no network; Get is one statement on the read pool, Create
// one write statement, Update BEGIN, two statements and COMMIT under the
// write lock, Sweep one statement per 1000 expired rows. Every write commit
// of a file database is an fsync (synchronous FULL), which dominates
// (BenchmarkStore measures both).
package sqlitetasks

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/sqlitedb"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// Options configure a Store. The zero value is ready to use.
type Options struct {
	// TablePrefix starts the table and index names: letters, digits and
	// underscores, starting with a letter or underscore, at most 41
	// characters. Default "mrtr_" (the table is mrtr_tasks, beside
	// sqlitestore's mrtr_ops and mrtr_states).
	TablePrefix string
	// Now is the store's clock, which decides what has expired. Default
	// time.Now; tests inject their own.
	Now func() time.Time
	// BusyTimeout is how long Open's connections wait for another
	// process's write lock before failing with SQLITE_BUSY; New waits as
	// long for the schema. Default 10s.
	BusyTimeout time.Duration
	// ReadConns is the size of Open's read pool for a file database.
	// Default 4.
	ReadConns int
}

// DefaultTablePrefix is the default Options.TablePrefix.
const DefaultTablePrefix = sqlitedb.DefaultTablePrefix

// MemoryPath opens a private in-memory database (gone on Close).
const MemoryPath = sqlitedb.MemoryPath

// Store is a tasks.Store on SQLite. It is safe for concurrent use.
type Store struct {
	now   func() time.Time
	w, r  *sql.DB // writes, reads; the same for New and in-memory databases
	ownDB bool
	st    stmts

	closeOnce sync.Once
	closeErr  error
}

var _ tasks.Store = (*Store)(nil)

// stmts are prepared once: parsing SQL costs more than running it.
type stmts struct {
	create, lock, update, sweep *sql.Stmt // on w
	get                         *sql.Stmt // on r
}

func schema(t string) []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS ` + t + ` (
			id         TEXT    NOT NULL PRIMARY KEY,
			expires_at INTEGER NOT NULL,
			data       BLOB    NOT NULL
		) STRICT`,
		`CREATE INDEX IF NOT EXISTS ` + t + `_expires_at ON ` + t + ` (expires_at)`,
	}
}

func (s *Store) prepare(ctx context.Context, t string) error {
	p := sqlitedb.NewPreparer(ctx)
	prep := p.Prepare
	s.st = stmts{
		// id, expires_at, data, now: take the id if it is free or its
		// record has expired.
		create: prep(s.w, `INSERT INTO `+t+` AS t (id, expires_at, data) VALUES (?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at, data = excluded.data
			WHERE t.expires_at <= ?`),
		// A write, so that it takes the write lock even in a transaction
		// that began DEFERRED (a database New was given): a read first
		// would let another connection commit before our write, which
		// then fails with SQLITE_BUSY_SNAPSHOT instead of waiting.
		lock:   prep(s.w, `UPDATE `+t+` SET data = data WHERE id = ? AND expires_at > ? RETURNING data`),
		update: prep(s.w, `UPDATE `+t+` SET expires_at = ?, data = ? WHERE id = ?`),
		sweep: prep(s.w, `DELETE FROM `+t+` WHERE rowid IN
			(SELECT rowid FROM `+t+` WHERE expires_at <= ? LIMIT `+strconv.Itoa(sqlitedb.SweepBatch)+`)`),
		get: prep(s.r, `SELECT data FROM `+t+` WHERE id = ? AND expires_at > ?`),
	}
	return p.Err()
}

func withDefaults(opts Options) (Options, error) {
	if err := sqlitedb.Defaults(&opts.TablePrefix, &opts.BusyTimeout, &opts.ReadConns); err != nil {
		return opts, fmt.Errorf("sqlitetasks: %w", err)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return opts, nil
}

// Open opens (creating if needed) the database at path, or a private
// in-memory one for MemoryPath, as one write connection (WAL, BEGIN
// IMMEDIATE, busy timeout, synchronous FULL) and a read pool, the way
// sqlitestore does, and creates the table if missing. Close closes it.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	opts, err := withDefaults(opts)
	if err != nil {
		return nil, err
	}
	w, r, err := sqlitedb.Open(path, opts.BusyTimeout, opts.ReadConns)
	if err != nil {
		return nil, fmt.Errorf("sqlitetasks: %w", err)
	}
	s, err := newStore(ctx, w, r, opts)
	if err != nil {
		w.Close()
		if r != w {
			r.Close()
		}
		return nil, fmt.Errorf("sqlitetasks: open %s: %w", path, err)
	}
	s.ownDB = true
	return s, nil
}

// New returns a Store on db, which the caller opened with the "sqlite"
// driver of modernc.org/sqlite and keeps (Close does not close it), and
// creates the table if missing: so one file can hold the tasks beside other
// tables, such as a job queue's that take the same *sql.DB. Reads and writes
// both go through db. Update is atomic whatever db's settings; for writers
// in several connections or processes to wait for each other rather than
// fail with SQLITE_BUSY, open db with a busy timeout, and for a file use
// WAL, e.g. path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)".
func New(ctx context.Context, db *sql.DB, opts Options) (*Store, error) {
	opts, err := withDefaults(opts)
	if err != nil {
		return nil, err
	}
	s, err := newStore(ctx, db, db, opts)
	if err != nil {
		return nil, fmt.Errorf("sqlitetasks: %w", err)
	}
	return s, nil
}

func newStore(ctx context.Context, w, r *sql.DB, opts Options) (*Store, error) {
	t := opts.TablePrefix + "tasks"
	if err := sqlitedb.CreateSchema(ctx, w, opts.BusyTimeout, schema(t)); err != nil {
		return nil, fmt.Errorf("create table %s: %w", t, err)
	}
	s := &Store{now: opts.Now, w: w, r: r}
	if err := s.prepare(ctx, t); err != nil {
		s.closeStmts()
		return nil, fmt.Errorf("prepare statements: %w", err)
	}
	return s, nil
}

// Close releases the prepared statements and closes the database if Open
// opened it. It is safe to call more than once.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closeStmts()
		if !s.ownDB {
			return
		}
		s.closeErr = s.w.Close()
		if s.r != s.w {
			if err := s.r.Close(); s.closeErr == nil {
				s.closeErr = err
			}
		}
	})
	return s.closeErr
}

func (s *Store) closeStmts() {
	for _, st := range []*sql.Stmt{s.st.create, s.st.lock, s.st.update, s.st.sweep, s.st.get} {
		if st != nil {
			st.Close()
		}
	}
}

// Create implements tasks.Store.
func (s *Store) Create(ctx context.Context, rec *tasks.Record) error {
	if rec == nil {
		return errors.New("sqlitetasks: create task: nil record")
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("sqlitetasks: create task %q: %w", rec.ID, err)
	}
	res, err := s.st.create.ExecContext(ctx, rec.ID, rec.ExpiresAt().UnixNano(), data, s.now().UnixNano())
	if err != nil {
		return fmt.Errorf("sqlitetasks: create task %q: %w", rec.ID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlitetasks: create task %q: %w", rec.ID, err)
	}
	if n == 0 {
		return fmt.Errorf("sqlitetasks: create task %q: a live task has this id", rec.ID)
	}
	return nil
}

// Get implements tasks.Store.
func (s *Store) Get(ctx context.Context, id string) (*tasks.Record, error) {
	var data []byte
	err := s.st.get.QueryRowContext(ctx, id, s.now().UnixNano()).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, tasks.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("sqlitetasks: get task %q: %w", id, err)
	}
	return decode(id, data)
}

// Update implements tasks.Store. fn runs exactly once, under the write
// lock.
func (s *Store) Update(ctx context.Context, id string, fn func(*tasks.Record) error) (*tasks.Record, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("sqlitetasks: update task %q: %w", id, err)
	}
	defer tx.Rollback() // after Commit, a no-op
	var data []byte
	err = tx.StmtContext(ctx, s.st.lock).QueryRowContext(ctx, id, s.now().UnixNano()).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, tasks.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("sqlitetasks: update task %q: %w", id, err)
	}
	rec, err := decode(id, data)
	if err != nil {
		return nil, err
	}
	if err := fn(rec); err != nil {
		return nil, err
	}
	if data, err = json.Marshal(rec); err != nil {
		return nil, fmt.Errorf("sqlitetasks: update task %q: %w", id, err)
	}
	if _, err := tx.StmtContext(ctx, s.st.update).ExecContext(ctx, rec.ExpiresAt().UnixNano(), data, id); err != nil {
		return nil, fmt.Errorf("sqlitetasks: update task %q: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("sqlitetasks: update task %q: %w", id, err)
	}
	return rec, nil
}

// Sweep implements tasks.Store. It deletes in batches of at most 1000 rows
// a statement.
func (s *Store) Sweep(ctx context.Context, now time.Time) (int, error) {
	total := 0
	for {
		res, err := s.st.sweep.ExecContext(ctx, now.UnixNano())
		if err != nil {
			return total, fmt.Errorf("sqlitetasks: sweep: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, fmt.Errorf("sqlitetasks: sweep: %w", err)
		}
		total += int(n)
		if n < sqlitedb.SweepBatch {
			return total, nil
		}
	}
}

func decode(id string, data []byte) (*tasks.Record, error) {
	var rec tasks.Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("sqlitetasks: task %q: decode record: %w", id, err)
	}
	return &rec, nil
}
