// Package pgtasks is a tasks.Store on PostgreSQL (pgx v5, pgxpool): every
// server instance that uses the same database and table prefix sees the
// same tasks, and a task outlives the instance that created it.
//
// Schema (created by Open and New with CREATE … IF NOT EXISTS under an
// advisory lock, so instances may start together; prefix from
// Options.TablePrefix, default "mrtr_"):
//
//	mrtr_tasks(id text PRIMARY KEY, expires_at timestamptz NOT NULL, data json NOT NULL)
//
// plus an index on expires_at. data is the tasks.Record as JSON, stored
// verbatim (json, not jsonb, keeps it byte for byte); expires_at is the
// record's ExpiresAt rounded up to PostgreSQL's microsecond, and the exact
// instant is checked on the record itself, so a record is live strictly
// before its ExpiresAt. A row past expires_at is invisible to Get and
// Update, Create replaces it, and Sweep deletes it.
//
// Atomicity: Update locks the live row (SELECT … FOR UPDATE) in a
// transaction, applies fn once, writes the result and commits; concurrent
// Updates of one id, from any instance, take turns on the row lock, so
// none is lost. Create is one INSERT … ON CONFLICT: of concurrent Creates
// of one id exactly one succeeds.
//
// Round trips (once pgx has prepared the statements on a connection):
// Get 1, Create 1, Update 2 (BEGIN with the locking SELECT, then UPDATE
// with COMMIT, each pair pipelined in one batch; ROLLBACK instead when fn
// fails or the record is missing), Sweep 1 per 5000 expired rows.
//
// An Update or Create that fails with an error of the connection (not fn's,
// not ErrNotFound) may have been applied all the same: when the answer to
// COMMIT is lost, nobody knows.
package pgtasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/pgschema"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// Options configure a Store. The zero value is ready to use.
type Options struct {
	// TablePrefix starts the table and index names: lower-case letters,
	// digits and underscores, starting with a letter or underscore, at
	// most 41 characters. Default "mrtr_" (the table is mrtr_tasks, beside
	// pgstore's mrtr_ops and mrtr_states). The table lives in the
	// connection's search_path.
	TablePrefix string
	// Now is the store's clock, which decides what has expired. Default
	// time.Now; tests inject their own.
	Now func() time.Time
}

// DefaultTablePrefix is the default Options.TablePrefix.
const DefaultTablePrefix = "mrtr_"

const sweepBatch = 5000

// Store is a tasks.Store on PostgreSQL. It is safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	ownPool bool
	now     func() time.Time
	q       queries
}

var _ tasks.Store = (*Store)(nil)

type queries struct {
	create, get, lock, update, sweep, schema string
}

func newQueries(prefix string) queries {
	t := prefix + "tasks"
	return queries{
		// $1 id, $2 expires_at, $3 data, $4 now: take the id if it is free
		// or its record has expired.
		create: `INSERT INTO ` + t + ` AS t (id, expires_at, data) VALUES ($1, $2, $3)
ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at, data = excluded.data
WHERE t.expires_at <= $4`,
		get:    `SELECT data FROM ` + t + ` WHERE id = $1 AND expires_at > $2`,
		lock:   `SELECT data FROM ` + t + ` WHERE id = $1 AND expires_at > $2 FOR UPDATE`,
		update: `UPDATE ` + t + ` SET expires_at = $2, data = $3 WHERE id = $1`,
		// The outer expires_at test is re-checked on the latest row version:
		// a row an Update extended meanwhile is not deleted.
		sweep: `DELETE FROM ` + t + ` WHERE expires_at <= $1 AND id IN (
	SELECT id FROM ` + t + ` WHERE expires_at <= $1 LIMIT ` + strconv.Itoa(sweepBatch) + ` FOR UPDATE SKIP LOCKED)`,
		schema: `
CREATE TABLE IF NOT EXISTS ` + t + ` (
	id         text        PRIMARY KEY,
	expires_at timestamptz NOT NULL,
	data       json        NOT NULL
);
CREATE INDEX IF NOT EXISTS ` + t + `_expires_at ON ` + t + ` (expires_at);`,
	}
}

// Open connects to the database at url (a pgx connection string, e.g.
// "postgres://user@host:5432/db?sslmode=disable"), creates the table if
// missing and returns a Store that owns its pool: Close closes it.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	return pgschema.Open(ctx, url, "pgtasks", func(pool *pgxpool.Pool) (*Store, error) { return New(ctx, pool, opts) },
		func(s *Store) { s.ownPool = true })
}

// New returns a Store on pool, creating the table if missing. The caller
// keeps pool: Close does not close it. One pool may serve pgstore too.
func New(ctx context.Context, pool *pgxpool.Pool, opts Options) (*Store, error) {
	if opts.TablePrefix == "" {
		opts.TablePrefix = DefaultTablePrefix
	}
	if err := pgschema.CheckPrefix(opts.TablePrefix); err != nil {
		return nil, fmt.Errorf("pgtasks: %w", err)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Store{pool: pool, now: opts.Now, q: newQueries(opts.TablePrefix)}
	if err := pgschema.Create(ctx, pool, s.q.schema); err != nil {
		return nil, fmt.Errorf("pgtasks: create table %stasks: %w", opts.TablePrefix, err)
	}
	return s, nil
}

// Close closes the pool if Open created it.
func (s *Store) Close() {
	if s.ownPool {
		s.pool.Close()
	}
}

// Create implements tasks.Store.
func (s *Store) Create(ctx context.Context, rec *tasks.Record) error {
	if rec == nil {
		return errors.New("pgtasks: create task: nil record")
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("pgtasks: create task %q: %w", rec.ID, err)
	}
	tag, err := s.pool.Exec(ctx, s.q.create, rec.ID, ceilMicro(rec.ExpiresAt()), data, s.now())
	if err != nil {
		return fmt.Errorf("pgtasks: create task %q: %w", rec.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("pgtasks: create task %q: a live task has this id", rec.ID)
	}
	return nil
}

// Get implements tasks.Store.
func (s *Store) Get(ctx context.Context, id string) (*tasks.Record, error) {
	now := s.now()
	var data []byte
	err := s.pool.QueryRow(ctx, s.q.get, id, now).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, tasks.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("pgtasks: get task %q: %w", id, err)
	}
	return decodeLive(id, data, now)
}

// Update implements tasks.Store. fn runs exactly once, while the row is
// locked.
func (s *Store) Update(ctx context.Context, id string, fn func(*tasks.Record) error) (*tasks.Record, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("pgtasks: update task %q: %w", id, err)
	}
	// Release destroys a connection left inside a transaction, so no error
	// path below can leak a held row lock into the pool.
	defer conn.Release()

	rec, err := s.lock(ctx, conn, id)
	if err == nil {
		err = fn(rec)
	}
	if err != nil {
		rollback(ctx, conn)
		return nil, err
	}
	data, err := json.Marshal(rec)
	if err != nil {
		rollback(ctx, conn)
		return nil, fmt.Errorf("pgtasks: update task %q: %w", id, err)
	}
	b := &pgx.Batch{}
	b.Queue(s.q.update, id, ceilMicro(rec.ExpiresAt()), data)
	b.Queue("COMMIT")
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("pgtasks: update task %q: %w", id, err)
	}
	return rec, nil
}

// lock opens a transaction on conn and locks and reads the live record id,
// in one round trip. Its errors are ErrNotFound or say what failed.
func (s *Store) lock(ctx context.Context, conn *pgxpool.Conn, id string) (*tasks.Record, error) {
	now := s.now()
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	var data []byte
	b.Queue(s.q.lock, id, now).QueryRow(func(row pgx.Row) error { return row.Scan(&data) })
	err := conn.SendBatch(ctx, b).Close()
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, tasks.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("pgtasks: update task %q: %w", id, err)
	}
	return decodeLive(id, data, now)
}

// rollbackTimeout bounds the ROLLBACK of a failed Update.
const rollbackTimeout = 5 * time.Second

// rollback ends the transaction on conn, if any, so that the row lock goes
// now and not when the pool next checks the connection. It runs even if
// ctx is done; if it fails, Release destroys the connection, which ends
// the transaction on the server.
func rollback(ctx context.Context, conn *pgxpool.Conn) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	defer cancel()
	_, _ = conn.Exec(ctx, "ROLLBACK")
}

// Sweep implements tasks.Store. It deletes in batches of at most 5000 rows
// a statement and skips rows an Update holds (they may be extended).
func (s *Store) Sweep(ctx context.Context, now time.Time) (int, error) {
	total := 0
	for {
		tag, err := s.pool.Exec(ctx, s.q.sweep, now)
		if err != nil {
			return total, fmt.Errorf("pgtasks: sweep: %w", err)
		}
		total += int(tag.RowsAffected())
		if tag.RowsAffected() < sweepBatch {
			return total, nil
		}
	}
}

// decodeLive decodes a row's record, and reports ErrNotFound if it has
// expired at now: the row's expires_at is rounded up to the microsecond.
func decodeLive(id string, data []byte, now time.Time) (*tasks.Record, error) {
	var rec tasks.Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("pgtasks: task %q: decode record: %w", id, err)
	}
	if !now.Before(rec.ExpiresAt()) {
		return nil, tasks.ErrNotFound
	}
	return &rec, nil
}

// ceilMicro rounds t up to PostgreSQL's microsecond resolution, so the
// stored expiry is never earlier than the record's: a live record is never
// filtered out or swept, and decodeLive checks the exact instant.
func ceilMicro(t time.Time) time.Time {
	if r := t.Truncate(time.Microsecond); r.Before(t) {
		return r.Add(time.Microsecond)
	}
	return t
}
