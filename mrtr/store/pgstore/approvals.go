package pgstore

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Approval records (store.ApprovalStore), in the table
//
//	mrtr_approvals(id text PK, digest text, latest boolean, open boolean,
//	               due timestamptz NULL, keep_until timestamptz NULL,
//	               version bigint, data bytea)
//
// with a unique index on digest over the rows with latest (the digest
// index: the latest row inserted for each digest), an index on (due, id)
// over the rows with a timer, and one on keep_until over the rows that may
// be swept. NULL is the zero time; times keep microseconds (PostgreSQL's
// precision). id and digest use the "C" collation, so that DueApprovals
// orders ids byte-wise as every store does. A row whose keep_until has
// passed is dead: readers ignore it and Sweep deletes it.
//
// InsertApproval is one transaction: it locks the digest's latest row (if
// any), refuses when it is live and open, unmarks it and inserts the new
// row as the latest. Two inserts for one digest that both found it free
// collide on the unique digest index; the loser runs again and then sees
// the winner's row. ReplaceApproval is one UPDATE … WHERE version = $n:
// of two replacers of one version, the second waits for the first's row
// lock, re-reads the row and matches nothing.

var _ store.ApprovalStore = (*Store)(nil)

// insertApprovalRetries bounds how often InsertApproval runs again after
// losing a race for a digest to a concurrent insert.
const insertApprovalRetries = 10

type approvalQueries struct {
	table, pkey, digestIndex string
	latestLock, unmark       string
	insert, replace, recheck string
	load, latest, due, sweep string
	schema                   string
}

const approvalCols = `id, digest, open, due, keep_until, version, data`

// liveApproval is the condition of a row not past its keep_until at $n.
func liveApproval(n int) string {
	return `(keep_until IS NULL OR keep_until > $` + strconv.Itoa(n) + `)`
}

func newApprovalQueries(p string) approvalQueries {
	t := p + "approvals"
	return approvalQueries{
		table:       t,
		pkey:        t + "_pkey",
		digestIndex: t + "_digest",
		// $1 digest.
		latestLock: `SELECT id, open, keep_until FROM ` + t + ` WHERE digest = $1 AND latest FOR UPDATE`,
		unmark:     `UPDATE ` + t + ` SET latest = false WHERE id = $1`,
		insert: `INSERT INTO ` + t + ` (id, digest, latest, open, due, keep_until, version, data)
VALUES ($1, $2, true, $3, $4, $5, 1, $6)`,
		// $1 id, $2 version, $3 now, $4 open, $5 due, $6 keep_until, $7 data.
		replace: `UPDATE ` + t + ` SET open = $4, due = $5, keep_until = $6, data = $7, version = version + 1
WHERE id = $1 AND version = $2 AND ` + liveApproval(3) + ` RETURNING version`,
		recheck: `SELECT version FROM ` + t + ` WHERE id = $1 AND ` + liveApproval(2),
		load:    `SELECT ` + approvalCols + ` FROM ` + t + ` WHERE id = $1 AND ` + liveApproval(2),
		latest:  `SELECT ` + approvalCols + ` FROM ` + t + ` WHERE digest = $1 AND latest AND ` + liveApproval(2),
		// $1 due by, $2 now, $3 limit.
		due: `SELECT id FROM ` + t + ` WHERE due IS NOT NULL AND due <= $1 AND ` + liveApproval(2) + `
ORDER BY due, id LIMIT $3`,
		// As sweepOps: the outer test is re-checked on the latest version
		// of a row a concurrent ReplaceApproval kept alive.
		sweep: `DELETE FROM ` + t + ` WHERE keep_until <= $1 AND id IN (
	SELECT id FROM ` + t + ` WHERE keep_until <= $1 LIMIT ` + strconv.Itoa(sweepBatch) + ` FOR UPDATE SKIP LOCKED)`,
		schema: `
CREATE TABLE IF NOT EXISTS ` + t + ` (
	id         text COLLATE "C" PRIMARY KEY,
	digest     text COLLATE "C" NOT NULL,
	latest     boolean     NOT NULL,
	open       boolean     NOT NULL,
	due        timestamptz,
	keep_until timestamptz,
	version    bigint      NOT NULL,
	data       bytea       NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS ` + t + `_digest ON ` + t + ` (digest) WHERE latest;
CREATE INDEX IF NOT EXISTS ` + t + `_due ON ` + t + ` (due, id) WHERE due IS NOT NULL;
CREATE INDEX IF NOT EXISTS ` + t + `_keep_until ON ` + t + ` (keep_until) WHERE keep_until IS NOT NULL;`,
	}
}

// pgTime is t for a nullable timestamptz: nil for the zero time.
func pgTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func fromPgTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// InsertApproval implements store.ApprovalStore.
func (s *Store) InsertApproval(ctx context.Context, row store.ApprovalRow) error {
	if err := s.begin(ctx, nil); err != nil {
		return err
	}
	for range insertApprovalRetries {
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return s.insertApproval(ctx, tx, row) })
		var pgErr *pgconn.PgError
		switch {
		case errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == s.aq.pkey:
			return store.ErrExists
		case errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == s.aq.digestIndex:
			continue // a concurrent insert for the digest won: look again
		case errors.Is(err, store.ErrExists):
			return err
		default:
			return wrap("insert approval", err)
		}
	}
	return wrap("insert approval", errors.New("no stable answer under contention"))
}

func (s *Store) insertApproval(ctx context.Context, tx pgx.Tx, row store.ApprovalRow) error {
	var (
		latest string
		open   bool
		keep   *time.Time
	)
	err := tx.QueryRow(ctx, s.aq.latestLock, row.Digest).Scan(&latest, &open, &keep)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return err
	case open && (keep == nil || keep.After(s.opts.Now())):
		return store.ErrExists
	default:
		if _, err := tx.Exec(ctx, s.aq.unmark, latest); err != nil {
			return err
		}
	}
	_, err = tx.Exec(ctx, s.aq.insert, row.ID, row.Digest, row.Open, pgTime(row.Due), pgTime(row.KeepUntil),
		nonNil(row.Data))
	return err
}

// ReplaceApproval implements store.ApprovalStore.
func (s *Store) ReplaceApproval(ctx context.Context, row store.ApprovalRow) (int64, error) {
	if err := s.begin(ctx, nil); err != nil {
		return 0, err
	}
	now := s.opts.Now()
	var v int64
	err := s.pool.QueryRow(ctx, s.aq.replace, row.ID, row.Version, now, row.Open, pgTime(row.Due),
		pgTime(row.KeepUntil), nonNil(row.Data)).Scan(&v)
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return 0, wrap("replace approval", err)
	}
	err = s.pool.QueryRow(ctx, s.aq.recheck, row.ID, now).Scan(&v)
	switch {
	case err == nil:
		return 0, store.ErrConflict
	case errors.Is(err, pgx.ErrNoRows):
		return 0, store.ErrNotFound
	default:
		return 0, wrap("replace approval", err)
	}
}

// LoadApproval implements store.ApprovalStore.
func (s *Store) LoadApproval(ctx context.Context, id string) (store.ApprovalRow, error) {
	return s.readApproval(ctx, "load approval", s.aq.load, id)
}

// LatestApproval implements store.ApprovalStore.
func (s *Store) LatestApproval(ctx context.Context, digest string) (store.ApprovalRow, error) {
	return s.readApproval(ctx, "latest approval", s.aq.latest, digest)
}

func (s *Store) readApproval(ctx context.Context, what, q, key string) (store.ApprovalRow, error) {
	if err := s.begin(ctx, nil); err != nil {
		return store.ApprovalRow{}, err
	}
	var (
		row       store.ApprovalRow
		due, keep *time.Time
	)
	err := s.pool.QueryRow(ctx, q, key, s.opts.Now()).
		Scan(&row.ID, &row.Digest, &row.Open, &due, &keep, &row.Version, &row.Data)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ApprovalRow{}, store.ErrNotFound
	}
	if err != nil {
		return store.ApprovalRow{}, wrap(what, err)
	}
	row.Due, row.KeepUntil, row.Data = fromPgTime(due), fromPgTime(keep), nonNil(row.Data)
	return row, nil
}

// DueApprovals implements store.ApprovalStore.
func (s *Store) DueApprovals(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if err := s.begin(ctx, nil); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return []string{}, nil
	}
	rows, err := s.pool.Query(ctx, s.aq.due, now, s.opts.Now(), limit)
	if err != nil {
		return nil, wrap("due approvals", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, wrap("due approvals", err)
	}
	if ids == nil {
		ids = []string{}
	}
	return ids, nil
}
