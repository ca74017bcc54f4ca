// Package pgstore is the store.Store on PostgreSQL (pgx v5, pgxpool), for
// several server instances sharing one database.
//
// Schema (created on Open/New with CREATE … IF NOT EXISTS under an
// advisory lock, so concurrent instances may start together; table prefix
// from Options.TablePrefix, default "mrtr_"):
//
//	mrtr_ops(op_key text PK, fingerprint bytea, owner text, done boolean,
//	         lease_expires timestamptz, expires_at timestamptz, result bytea)
//	mrtr_states(ref text PK, workflow text, subject text, principal text,
//	            data bytea, expires_at timestamptz)
//	mrtr_approvals(id text PK, digest text, latest boolean, open boolean,
//	               due timestamptz, keep_until timestamptz, version bigint,
//	               data bytea)
//
// plus indexes on ops(expires_at), states(workflow) and states(expires_at),
// and those of approvals (approvals.go).
// A row whose expires_at has passed is dead: readers ignore it, Claim
// overwrites it and Sweep deletes it.
//
// Round trips: Claim is one statement (INSERT … ON CONFLICT DO UPDATE …
// WHERE <takeover allowed> RETURNING, with the existing row read in the
// same statement), Complete is one UPDATE; each is one round trip once
// pgx has cached the prepared statement on the connection. Rare paths take
// one more: a Complete that did not update re-reads the row to tell a
// repeated Complete from a lost lease, and a Claim that races with a
// concurrent insert of the same key re-runs its statement.
package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/pgschema"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/storecall"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Options configure a Store. The zero value is ready to use.
type Options struct {
	store.Options
	// TablePrefix is prepended to table and index names: lower-case
	// letters, digits and underscores, starting with a letter or
	// underscore, at most 41 characters. Default "mrtr_". Tests use a
	// unique prefix each; the tables live in the connection's search_path.
	TablePrefix string
}

// DefaultTablePrefix is the default Options.TablePrefix.
const DefaultTablePrefix = "mrtr_"

const sweepBatch = 5000

// claimRetries bounds how often Claim re-runs its statement when its
// snapshot missed a concurrent change (each re-run sees newer data).
const claimRetries = 20

// Store is a store.Store on PostgreSQL.
type Store struct {
	pool    *pgxpool.Pool
	ownPool bool
	opts    Options
	q       queries
	bq      batchQueries
	aq      approvalQueries // approvals.go

	closed    atomic.Bool
	closeOnce sync.Once
}

var _ store.Store = (*Store)(nil)

type queries struct {
	claim, complete, completeCheck, release string
	putState, getState, deleteWorkflow      string
	sweepOps, sweepStates                   string
	schema                                  string
}

// claimed is the CTE of both claims (Claim's, a batch's): the upsert into
// ops of rows (VALUES or a SELECT of $1 key, $2 fingerprint, $3 owner, $5
// lease expiry, $6 record expiry) at $4 (now), by the rule of Claim's
// statement, returning whether it took over another owner's live claim.
func claimed(ops, rows string) string {
	return `claimed AS (
	INSERT INTO ` + ops + ` AS o (op_key, fingerprint, owner, done, lease_expires, expires_at, result)
	` + rows + `
	ON CONFLICT (op_key) DO UPDATE
		SET fingerprint = excluded.fingerprint, owner = excluded.owner, done = false,
			lease_expires = excluded.lease_expires, expires_at = excluded.expires_at, result = NULL,
			taken_over = o.expires_at > $4 AND o.owner <> excluded.owner
		WHERE o.expires_at <= $4
			OR (NOT o.done AND o.fingerprint = excluded.fingerprint
				AND (o.lease_expires <= $4 OR o.owner = excluded.owner))
	RETURNING o.taken_over
)`
}

func newQueries(p string) queries {
	ops, states := p+"ops", p+"states"
	batch := strconv.Itoa(sweepBatch)
	return queries{
		// $1 key, $2 fingerprint, $3 owner, $4 now, $5 lease expiry,
		// $6 record expiry (lease + AbandonAfter).
		//
		// The INSERT takes the key if it is free, dead (expires_at passed),
		// or a pending claim of the same fingerprint whose lease lapsed or
		// that the same owner holds. Otherwise the second SELECT reports the
		// existing row. That SELECT reads the statement's snapshot, which
		// can predate a row inserted or changed concurrently (the ON
		// CONFLICT clause itself sees the latest version); Claim detects
		// that (no row, or a row that should have been taken) and re-runs.
		claim: `WITH ` + claimed(ops, `VALUES ($1, $2, $3, false, $5, $6, NULL)`) + `
SELECT true, false, false, false, NULL::timestamptz, NULL::timestamptz, NULL::bytea, taken_over FROM claimed
UNION ALL
SELECT false, o.done, o.fingerprint = $2, o.owner = $3, o.lease_expires, o.expires_at,
	CASE WHEN o.done AND o.fingerprint = $2 THEN o.result END, false
FROM ` + ops + ` o
WHERE o.op_key = $1 AND NOT EXISTS (SELECT 1 FROM claimed)`,
		complete: `UPDATE ` + ops + ` SET done = true, result = $3, lease_expires = NULL, expires_at = $5
WHERE op_key = $1 AND owner = $2 AND NOT done AND expires_at > $4`,
		completeCheck: `SELECT done FROM ` + ops + ` WHERE op_key = $1 AND owner = $2 AND expires_at > $3`,
		release:       `DELETE FROM ` + ops + ` WHERE op_key = $1 AND owner = $2 AND NOT done`,
		putState: `INSERT INTO ` + states + ` (ref, workflow, subject, principal, data, expires_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (ref) DO UPDATE SET workflow = excluded.workflow, subject = excluded.subject,
	principal = excluded.principal, data = excluded.data, expires_at = excluded.expires_at`,
		getState:       `SELECT workflow, subject, principal, data FROM ` + states + ` WHERE ref = $1 AND expires_at > $2`,
		deleteWorkflow: `DELETE FROM ` + states + ` WHERE workflow = $1`,
		// The outer expires_at test is re-checked on the latest row version
		// if a concurrent Claim revived the row: a live record is never swept.
		sweepOps: `DELETE FROM ` + ops + ` WHERE expires_at <= $1 AND op_key IN (
	SELECT op_key FROM ` + ops + ` WHERE expires_at <= $1 LIMIT ` + batch + ` FOR UPDATE SKIP LOCKED)`,
		sweepStates: `DELETE FROM ` + states + ` WHERE expires_at <= $1 AND ref IN (
	SELECT ref FROM ` + states + ` WHERE expires_at <= $1 LIMIT ` + batch + ` FOR UPDATE SKIP LOCKED)`,
		schema: `
CREATE TABLE IF NOT EXISTS ` + ops + ` (
	op_key        text        PRIMARY KEY,
	fingerprint   bytea       NOT NULL,
	owner         text        NOT NULL,
	done          boolean     NOT NULL DEFAULT false,
	lease_expires timestamptz,
	expires_at    timestamptz NOT NULL,
	result        bytea
);
-- taken_over: the last Claim took over another owner's lapsed claim.
ALTER TABLE ` + ops + ` ADD COLUMN IF NOT EXISTS taken_over boolean NOT NULL DEFAULT false;
CREATE INDEX IF NOT EXISTS ` + ops + `_expires_at ON ` + ops + ` (expires_at);
CREATE TABLE IF NOT EXISTS ` + states + ` (
	ref        text        PRIMARY KEY,
	workflow   text        NOT NULL,
	subject    text        NOT NULL,
	principal  text        NOT NULL,
	data       bytea       NOT NULL,
	expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS ` + states + `_workflow ON ` + states + ` (workflow);
CREATE INDEX IF NOT EXISTS ` + states + `_expires_at ON ` + states + ` (expires_at);`,
	}
}

// Open connects to the database at url (a pgx connection string, e.g.
// "postgres://user@host:5432/db?sslmode=disable"), creates the schema if
// missing and returns a Store that owns (and on Close closes) its pool.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	return pgschema.Open(ctx, url, "pgstore", func(pool *pgxpool.Pool) (*Store, error) { return New(ctx, pool, opts) },
		func(s *Store) { s.ownPool = true })
}

// New returns a Store using pool, creating the schema if missing. The
// caller keeps ownership of pool: Close does not close it.
func New(ctx context.Context, pool *pgxpool.Pool, opts Options) (*Store, error) {
	opts.Options = opts.Options.WithDefaults()
	if opts.TablePrefix == "" {
		opts.TablePrefix = DefaultTablePrefix
	}
	if err := pgschema.CheckPrefix(opts.TablePrefix); err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	s := &Store{pool: pool, opts: opts, q: newQueries(opts.TablePrefix), bq: newBatchQueries(opts.TablePrefix),
		aq: newApprovalQueries(opts.TablePrefix)}
	if err := pgschema.Create(ctx, pool, s.q.schema+s.aq.schema); err != nil {
		return nil, fmt.Errorf("pgstore: create schema: %w", err)
	}
	return s, nil
}

// Pool returns the store's connection pool.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// TablePrefix returns the prefix of the store's tables.
func (s *Store) TablePrefix() string { return s.opts.TablePrefix }

// Execer is what DropTables needs (*pgx.Conn, *pgxpool.Pool, pgx.Tx).
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// DropTables drops the tables of the given prefix (for tests and
// teardown). It does nothing for tables that do not exist.
func DropTables(ctx context.Context, db Execer, prefix string) error {
	if err := pgschema.CheckPrefix(prefix); err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	_, err := db.Exec(ctx, `DROP TABLE IF EXISTS `+prefix+`ops, `+prefix+`states, `+prefix+`approvals`)
	return err
}

// begin is what every call checks first (storecall.Begin): invalid, the
// validation error of its arguments, then ctx, then whether s is closed.
func (s *Store) begin(ctx context.Context, invalid error) error {
	return storecall.Begin(ctx, invalid, &s.closed)
}

// Claim implements store.Store.
func (s *Store) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if err := s.begin(ctx, store.ValidateClaim(req)); err != nil {
		return store.ClaimResult{}, err
	}
	for range claimRetries {
		now := s.opts.Now()
		lease := now.Add(req.Lease)
		var (
			acquired, done, sameFP, sameOwner, takeover bool
			leaseExpires, expiresAt                     *time.Time
			result                                      []byte
		)
		err := s.pool.QueryRow(ctx, s.q.claim, req.Key, req.Fingerprint, req.Owner, now, lease,
			lease.Add(s.opts.AbandonAfter)).
			Scan(&acquired, &done, &sameFP, &sameOwner, &leaseExpires, &expiresAt, &result, &takeover)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			continue // a concurrent insert our snapshot does not show yet
		case err != nil:
			return store.ClaimResult{}, wrap("claim", err)
		}
		// The same decision as a batch's claim (batch.go); not ok: a stale
		// snapshot, run the statement again.
		if res, ok := claimOutcome(now, &acquired, &done, &sameFP, &sameOwner, &takeover, leaseExpires, expiresAt, result); ok {
			return res, nil
		}
	}
	return store.ClaimResult{}, fmt.Errorf("pgstore: claim %q: no stable answer after %d attempts under contention", req.Key, claimRetries)
}

// Complete implements store.Store.
func (s *Store) Complete(ctx context.Context, key, owner string, result []byte, retain time.Duration) error {
	if err := s.begin(ctx, store.ValidateComplete(key, owner, retain)); err != nil {
		return err
	}
	return s.complete(ctx, s.pool, key, owner, result, retain)
}

// querier is what Complete runs on: the pool, or an effect's transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func (s *Store) complete(ctx context.Context, q querier, key, owner string, result []byte, retain time.Duration) error {
	now := s.opts.Now()
	tag, err := q.Exec(ctx, s.q.complete, key, owner, nonNil(result), now, now.Add(retain))
	if err != nil {
		return wrap("complete", err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	// Not our live pending claim: a repeated Complete by the owner of the
	// completed record is fine, anything else lost the lease.
	var done bool
	err = q.QueryRow(ctx, s.q.completeCheck, key, owner, now).Scan(&done)
	switch {
	case err == nil && done:
		return nil
	case err == nil || errors.Is(err, pgx.ErrNoRows):
		return store.ErrLeaseLost
	default:
		return wrap("complete", err)
	}
}

// Release implements store.Store.
func (s *Store) Release(ctx context.Context, key, owner string) error {
	if err := s.begin(ctx, store.ValidateRelease(key, owner)); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, s.q.release, key, owner)
	return wrap("release", err)
}

// PutState implements store.Store.
func (s *Store) PutState(ctx context.Context, rec store.StateRecord, ttl time.Duration) error {
	if err := s.begin(ctx, store.ValidateState(rec, ttl)); err != nil {
		return err
	}
	return s.putState(ctx, s.pool, rec, ttl)
}

// putState is PutState on q: the pool, or an effect's transaction.
func (s *Store) putState(ctx context.Context, q querier, rec store.StateRecord, ttl time.Duration) error {
	_, err := q.Exec(ctx, s.q.putState, rec.Ref, rec.Workflow, rec.Subject, rec.Principal, nonNil(rec.Data),
		s.opts.Now().Add(ttl))
	return wrap("put state", err)
}

// GetState implements store.Store.
func (s *Store) GetState(ctx context.Context, ref string) (store.StateRecord, error) {
	if err := storecall.BeginRef(ctx, ref, &s.closed); err != nil {
		return store.StateRecord{}, err
	}
	rec := store.StateRecord{Ref: ref}
	err := s.pool.QueryRow(ctx, s.q.getState, ref, s.opts.Now()).
		Scan(&rec.Workflow, &rec.Subject, &rec.Principal, &rec.Data)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.StateRecord{}, store.ErrNotFound
	}
	if err != nil {
		return store.StateRecord{}, wrap("get state", err)
	}
	rec.Data = nonNil(rec.Data)
	return rec, nil
}

// DeleteWorkflowStates implements store.Store.
func (s *Store) DeleteWorkflowStates(ctx context.Context, workflow string) error {
	if err := s.begin(ctx, store.ValidateWorkflow(workflow)); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, s.q.deleteWorkflow, workflow)
	return wrap("delete workflow states", err)
}

// Sweep implements store.Store. It deletes dead claims, continuation
// records and approval records (past their keep_until), counting them all,
// in batches of at most 5000 rows per statement and skips rows another transaction holds locked (they are
// being revived, or swept by another instance).
func (s *Store) Sweep(ctx context.Context) (int, error) {
	if err := s.begin(ctx, nil); err != nil {
		return 0, err
	}
	now := s.opts.Now()
	total := 0
	for _, q := range []string{s.q.sweepOps, s.q.sweepStates, s.aq.sweep} {
		for {
			tag, err := s.pool.Exec(ctx, q, now)
			if err != nil {
				return total, wrap("sweep", err)
			}
			total += int(tag.RowsAffected())
			if tag.RowsAffected() < sweepBatch {
				break
			}
		}
	}
	return total, nil
}

// Close makes the store unusable (later calls fail with store.ErrClosed)
// and closes the pool if Open created it. It is safe to call more than
// once.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		if s.ownPool {
			s.pool.Close()
		}
	})
	return nil
}

func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("pgstore: %s: %w", op, err)
}
