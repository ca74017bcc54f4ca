// Package sqlitestore is the embedded store.Store for a single node: one
// SQLite file (or an in-memory database for tests) through
// modernc.org/sqlite, pure Go, no cgo.
//
// Several goroutines and several processes may share one file: the
// database runs in WAL mode with a busy timeout, every write is a
// BEGIN IMMEDIATE transaction (so a claim reads and writes its row under
// the database write lock, atomically across processes), and in-process
// writers queue on a single write connection instead of spinning in
// SQLite's busy handler. Writers queued there are committed together, in
// one transaction with one commit (group commit, see groupcommit.go);
// each still learns its own outcome. Reads (GetState) use a separate
// small pool.
//
// Schema (created on Open, idempotently; prefix from Options.TablePrefix,
// default "mrtr_"; times are Unix nanoseconds):
//
//	mrtr_ops(op_key TEXT PK, fingerprint BLOB, owner TEXT, done INTEGER,
//	         lease_expires INTEGER, expires_at INTEGER, result BLOB)
//	mrtr_states(ref TEXT PK, workflow TEXT, subject TEXT, principal TEXT,
//	            data BLOB, expires_at INTEGER)
//	mrtr_approvals(id TEXT PK, digest TEXT, latest INTEGER, open INTEGER,
//	               due INTEGER, keep_until INTEGER, version INTEGER, data BLOB)
//
// plus indexes on ops(expires_at), states(workflow) and states(expires_at),
// and those of approvals (approvals.go).
// A row whose expires_at has passed is dead: readers ignore it and Sweep
// deletes it.
package sqlitestore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/sqlitedb"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Options configure a Store. The zero value is ready to use.
type Options struct {
	store.Options
	// TablePrefix is prepended to the table and index names; letters,
	// digits and underscores, starting with a letter or underscore.
	// Default "mrtr_".
	TablePrefix string
	// BusyTimeout is how long a connection waits for another process's
	// write lock before failing with SQLITE_BUSY. Default 10s.
	BusyTimeout time.Duration
	// ReadConns is the size of the read pool for file databases. Default 4.
	ReadConns int
}

// DefaultTablePrefix is the default Options.TablePrefix.
const DefaultTablePrefix = sqlitedb.DefaultTablePrefix

// MemoryPath opens a private in-memory database (gone on Close).
const MemoryPath = sqlitedb.MemoryPath

// Store is a store.Store on SQLite.
type Store struct {
	opts Options
	w    *sql.DB // exactly one connection; every write goes through it
	r    *sql.DB // readers; == w for in-memory databases
	q    queries
	st   stmts
	aq   approvalQueries // approvals.go
	ast  approvalStmts

	writes     chan *write   // to the writer goroutine (groupcommit.go); unbuffered
	closing    chan struct{} // closed by Close
	writerDone chan struct{} // closed when the writer goroutine has returned
	maxGroup   int           // most writes one transaction carries

	groupsCommitted atomic.Int64 // for tests

	closeOnce sync.Once
	closeErr  error
}

var _ store.Store = (*Store)(nil)

type queries struct {
	claimSelect, claimUpsert           string
	complete, completeCheck, release   string
	putState, getState, deleteWorkflow string
	sweepOps, sweepStates              string
	schema                             []string
}

// stmts are prepared once: parsing SQL costs more than running it.
type stmts struct {
	claimSelect, claimUpsert, complete, completeCheck, release *sql.Stmt
	putState, deleteWorkflow, sweepOps, sweepStates            *sql.Stmt
	getState                                                   *sql.Stmt // on the read pool
	getStateW                                                  *sql.Stmt // on the write connection, for batches
	savepoint, releaseSavepoint, rollbackSavepoint             *sql.Stmt // around each write of a group
}

func (s *Store) prepare(ctx context.Context) error {
	p := sqlitedb.NewPreparer(ctx)
	prep := p.Prepare
	s.st = stmts{
		claimSelect:    prep(s.w, s.q.claimSelect),
		claimUpsert:    prep(s.w, s.q.claimUpsert),
		complete:       prep(s.w, s.q.complete),
		completeCheck:  prep(s.w, s.q.completeCheck),
		release:        prep(s.w, s.q.release),
		putState:       prep(s.w, s.q.putState),
		deleteWorkflow: prep(s.w, s.q.deleteWorkflow),
		sweepOps:       prep(s.w, s.q.sweepOps),
		sweepStates:    prep(s.w, s.q.sweepStates),
		getState:       prep(s.r, s.q.getState),
		getStateW:      prep(s.w, s.q.getState),

		savepoint:         prep(s.w, "SAVEPOINT mrtr_write"),
		releaseSavepoint:  prep(s.w, "RELEASE mrtr_write"),
		rollbackSavepoint: prep(s.w, "ROLLBACK TO mrtr_write"),
	}
	s.prepareApprovals(p)
	return p.Err()
}

func newQueries(p string) queries {
	ops, states := p+"ops", p+"states"
	return queries{
		claimSelect: `SELECT fingerprint, owner, done, lease_expires, expires_at,
			CASE WHEN done = 1 AND fingerprint = ? THEN result END FROM ` + ops + ` WHERE op_key = ?`,
		claimUpsert: `INSERT INTO ` + ops + ` (op_key, fingerprint, owner, done, lease_expires, expires_at, result)
			VALUES (?, ?, ?, 0, ?, ?, NULL)
			ON CONFLICT (op_key) DO UPDATE SET fingerprint = excluded.fingerprint, owner = excluded.owner,
				done = 0, lease_expires = excluded.lease_expires, expires_at = excluded.expires_at, result = NULL`,
		complete: `UPDATE ` + ops + ` SET done = 1, result = ?, lease_expires = 0, expires_at = ?
			WHERE op_key = ? AND owner = ? AND done = 0 AND expires_at > ?`,
		completeCheck: `SELECT done FROM ` + ops + ` WHERE op_key = ? AND owner = ? AND expires_at > ?`,
		release:       `DELETE FROM ` + ops + ` WHERE op_key = ? AND owner = ? AND done = 0`,
		putState: `INSERT INTO ` + states + ` (ref, workflow, subject, principal, data, expires_at)
			VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (ref) DO UPDATE SET workflow = excluded.workflow, subject = excluded.subject,
				principal = excluded.principal, data = excluded.data, expires_at = excluded.expires_at`,
		getState:       `SELECT workflow, subject, principal, data FROM ` + states + ` WHERE ref = ? AND expires_at > ?`,
		deleteWorkflow: `DELETE FROM ` + states + ` WHERE workflow = ?`,
		sweepOps: `DELETE FROM ` + ops + ` WHERE rowid IN
			(SELECT rowid FROM ` + ops + ` WHERE expires_at <= ? LIMIT ` + fmt.Sprint(sqlitedb.SweepBatch) + `)`,
		sweepStates: `DELETE FROM ` + states + ` WHERE rowid IN
			(SELECT rowid FROM ` + states + ` WHERE expires_at <= ? LIMIT ` + fmt.Sprint(sqlitedb.SweepBatch) + `)`,
		schema: []string{
			`CREATE TABLE IF NOT EXISTS ` + ops + ` (
				op_key        TEXT    NOT NULL PRIMARY KEY,
				fingerprint   BLOB    NOT NULL,
				owner         TEXT    NOT NULL,
				done          INTEGER NOT NULL DEFAULT 0,
				lease_expires INTEGER NOT NULL,
				expires_at    INTEGER NOT NULL,
				result        BLOB
			) STRICT`,
			`CREATE INDEX IF NOT EXISTS ` + ops + `_expires_at ON ` + ops + ` (expires_at)`,
			`CREATE TABLE IF NOT EXISTS ` + states + ` (
				ref        TEXT    NOT NULL PRIMARY KEY,
				workflow   TEXT    NOT NULL,
				subject    TEXT    NOT NULL,
				principal  TEXT    NOT NULL,
				data       BLOB    NOT NULL,
				expires_at INTEGER NOT NULL
			) STRICT`,
			`CREATE INDEX IF NOT EXISTS ` + states + `_workflow ON ` + states + ` (workflow)`,
			`CREATE INDEX IF NOT EXISTS ` + states + `_expires_at ON ` + states + ` (expires_at)`,
		},
	}
}

// Open opens (creating if needed) the SQLite database at path, or a
// private in-memory database for MemoryPath (":memory:"), and creates the
// schema if missing.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	opts.Options = opts.Options.WithDefaults()
	if err := sqlitedb.Defaults(&opts.TablePrefix, &opts.BusyTimeout, &opts.ReadConns); err != nil {
		return nil, fmt.Errorf("sqlitestore: %w", err)
	}
	s := &Store{opts: opts, q: newQueries(opts.TablePrefix),
		writes: make(chan *write), closing: make(chan struct{}), writerDone: make(chan struct{}), maxGroup: maxGroup}
	go s.writeLoop()
	var err error
	s.w, s.r, err = sqlitedb.Open(path, opts.BusyTimeout, opts.ReadConns)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: %w", err)
	}
	aq, aschema := newApprovalQueries(opts.TablePrefix)
	s.aq = aq
	if err := sqlitedb.CreateSchema(ctx, s.w, opts.BusyTimeout, append(s.q.schema, aschema...)); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlitestore: open %s: %w", path, err)
	}
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlitestore: open %s: %w", path, err)
	}
	return s, nil
}

func (s *Store) now() int64 { return s.opts.Now().UnixNano() }

// Claim implements store.Store.
func (s *Store) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if err := store.ValidateClaim(req); err != nil {
		return store.ClaimResult{}, err
	}
	var res store.ClaimResult
	err := s.inWriteTx(ctx, "claim", func(ctx context.Context, tx *sql.Tx) (err error) {
		res, err = s.claim(ctx, tx, req)
		return err
	})
	if err != nil {
		return store.ClaimResult{}, err
	}
	return res, nil
}

// claim is Claim inside tx, which holds the write lock.
func (s *Store) claim(ctx context.Context, tx *sql.Tx, req store.ClaimRequest) (store.ClaimResult, error) {
	now := s.now()

	var (
		fp                      []byte
		owner                   string
		done                    bool
		leaseExpires, expiresAt int64
		result                  []byte
	)
	err := tx.StmtContext(ctx, s.st.claimSelect).QueryRowContext(ctx, req.Fingerprint, req.Key).
		Scan(&fp, &owner, &done, &leaseExpires, &expiresAt, &result)
	switch {
	case errors.Is(err, sql.ErrNoRows) || (err == nil && expiresAt <= now):
		// absent, expired or abandoned: fresh claim
	case err != nil:
		return store.ClaimResult{}, wrap("claim", err)
	case !bytes.Equal(fp, req.Fingerprint):
		return store.ClaimResult{Status: store.Mismatch}, nil
	case done:
		return store.ClaimResult{Status: store.Replayed, Result: nonNil(result)}, nil
	case now < leaseExpires && owner != req.Owner:
		return store.ClaimResult{Status: store.InFlight, LeaseExpires: time.Unix(0, leaseExpires).UTC()}, nil
	default:
		// lapsed lease of the same operation (takeover) or same owner again
	}
	takeover := err == nil && expiresAt > now && owner != req.Owner
	lease := now + int64(req.Lease)
	if _, err := tx.StmtContext(ctx, s.st.claimUpsert).ExecContext(ctx, req.Key, req.Fingerprint, req.Owner,
		lease, lease+int64(s.opts.AbandonAfter)); err != nil {
		return store.ClaimResult{}, wrap("claim", err)
	}
	return store.ClaimResult{Status: store.Acquired, Takeover: takeover}, nil
}

// Complete implements store.Store.
func (s *Store) Complete(ctx context.Context, key, owner string, result []byte, retain time.Duration) error {
	if err := store.ValidateComplete(key, owner, retain); err != nil {
		return err
	}
	return s.inWriteTx(ctx, "complete", func(ctx context.Context, tx *sql.Tx) error {
		return s.complete(ctx, tx, key, owner, result, retain)
	})
}

// complete is Complete inside tx, which holds the write lock.
func (s *Store) complete(ctx context.Context, tx *sql.Tx, key, owner string, result []byte, retain time.Duration) error {
	complete, check := tx.StmtContext(ctx, s.st.complete), tx.StmtContext(ctx, s.st.completeCheck)
	now := s.now()
	res, err := complete.ExecContext(ctx, nonNil(result), now+int64(retain), key, owner, now)
	if err != nil {
		return wrap("complete", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return wrap("complete", err)
	} else if n == 1 {
		return nil
	}
	// Not our live pending claim. A repeated Complete by the owner of the
	// completed record is fine; anything else lost the lease.
	var done bool
	err = check.QueryRowContext(ctx, key, owner, now).Scan(&done)
	switch {
	case err == nil && done:
		return nil
	case err == nil || errors.Is(err, sql.ErrNoRows):
		return store.ErrLeaseLost
	default:
		return wrap("complete", err)
	}
}

// Release implements store.Store.
func (s *Store) Release(ctx context.Context, key, owner string) error {
	if err := store.ValidateRelease(key, owner); err != nil {
		return err
	}
	return s.inWriteTx(ctx, "release", func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.StmtContext(ctx, s.st.release).ExecContext(ctx, key, owner)
		return wrap("release", err)
	})
}

// PutState implements store.Store.
func (s *Store) PutState(ctx context.Context, rec store.StateRecord, ttl time.Duration) error {
	if err := store.ValidateState(rec, ttl); err != nil {
		return err
	}
	return s.inWriteTx(ctx, "put state", func(ctx context.Context, tx *sql.Tx) error {
		return s.putState(ctx, tx, rec, ttl)
	})
}

// putState is PutState inside tx, which holds the write lock.
func (s *Store) putState(ctx context.Context, tx *sql.Tx, rec store.StateRecord, ttl time.Duration) error {
	_, err := tx.StmtContext(ctx, s.st.putState).ExecContext(ctx, rec.Ref, rec.Workflow, rec.Subject, rec.Principal,
		nonNil(rec.Data), s.now()+int64(ttl))
	return wrap("put state", err)
}

// GetState implements store.Store.
func (s *Store) GetState(ctx context.Context, ref string) (store.StateRecord, error) {
	if err := ctx.Err(); err != nil {
		return store.StateRecord{}, err
	}
	if !store.ValidRef(ref) {
		return store.StateRecord{}, store.ErrNotFound
	}
	rec := store.StateRecord{Ref: ref}
	err := s.st.getState.QueryRowContext(ctx, ref, s.now()).Scan(&rec.Workflow, &rec.Subject, &rec.Principal, &rec.Data)
	if errors.Is(err, sql.ErrNoRows) {
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
	if err := store.ValidateWorkflow(workflow); err != nil {
		return err
	}
	return s.inWriteTx(ctx, "delete workflow states", func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.StmtContext(ctx, s.st.deleteWorkflow).ExecContext(ctx, workflow)
		return wrap("delete workflow states", err)
	})
}

// Sweep implements store.Store: it deletes dead claims, continuation
// records and approval records (past their keep_until), in batches of at
// most 1000 rows per transaction, and counts them all.
func (s *Store) Sweep(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	now := s.now()
	total := 0
	for _, q := range []*sql.Stmt{s.st.sweepOps, s.st.sweepStates, s.ast.sweep} {
		for {
			res, err := q.ExecContext(ctx, now)
			if err != nil {
				return total, wrap("sweep", err)
			}
			n, err := res.RowsAffected()
			if err != nil {
				return total, wrap("sweep", err)
			}
			total += int(n)
			if n < sqlitedb.SweepBatch {
				break
			}
		}
	}
	return total, nil
}

// Close closes the database. It is safe to call more than once.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		// Writes queued now get errClosed; the group being committed, if
		// any, finishes first.
		close(s.closing)
		<-s.writerDone
		for _, st := range []*sql.Stmt{s.st.claimSelect, s.st.claimUpsert, s.st.complete, s.st.completeCheck,
			s.st.release, s.st.putState, s.st.deleteWorkflow, s.st.sweepOps, s.st.sweepStates, s.st.getState, s.st.getStateW,
			s.st.savepoint, s.st.releaseSavepoint, s.st.rollbackSavepoint} {
			if st != nil {
				st.Close()
			}
		}
		for _, st := range s.ast.all() {
			if st != nil {
				st.Close()
			}
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

func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("sqlitestore: %s: %w", op, err)
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
