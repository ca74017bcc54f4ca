package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/sqlitedb"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Approval records (store.ApprovalStore), in the table
//
//	mrtr_approvals(id TEXT PK, digest TEXT, latest INTEGER, open INTEGER,
//	               due INTEGER NULL, keep_until INTEGER NULL, version INTEGER,
//	               data BLOB)
//
// with a unique index on digest over the rows with latest = 1 (the digest
// index: the latest row inserted for each digest), an index on (due, id)
// over the rows with a timer, and one on keep_until over the rows that
// may be swept. due and keep_until are Unix nanoseconds, NULL for the zero
// time. A row whose keep_until has passed is dead: readers ignore it and
// Sweep deletes it. Writes go through the writer like every other write
// (groupcommit.go): an insert reads the digest's latest row and writes in
// one transaction under the database's write lock.

var _ store.ApprovalStore = (*Store)(nil)

type approvalQueries struct {
	idTaken, latestOpen, unmark, insert string
	replace, replaceCheck               string
	load, latest, due                   string
	sweep                               string
}

type approvalStmts struct {
	idTaken, latestOpen, unmark, insert, replace, replaceCheck *sql.Stmt // on the write connection
	load, latest, due                                          *sql.Stmt // on the read pool
	sweep                                                      *sql.Stmt
}

const approvalCols = `id, digest, open, due, keep_until, version, data`

// liveApproval is the condition of a row not past its keep_until at ?.
const liveApproval = `(keep_until IS NULL OR keep_until > ?)`

func newApprovalQueries(p string) (approvalQueries, []string) {
	t := p + "approvals"
	q := approvalQueries{
		idTaken:    `SELECT 1 FROM ` + t + ` WHERE id = ?`,
		latestOpen: `SELECT 1 FROM ` + t + ` WHERE digest = ? AND latest = 1 AND open = 1 AND ` + liveApproval,
		unmark:     `UPDATE ` + t + ` SET latest = 0 WHERE digest = ? AND latest = 1`,
		insert: `INSERT INTO ` + t + ` (id, digest, latest, open, due, keep_until, version, data)
			VALUES (?, ?, 1, ?, ?, ?, 1, ?)`,
		replace: `UPDATE ` + t + ` SET open = ?, due = ?, keep_until = ?, data = ?, version = version + 1
			WHERE id = ? AND version = ? AND ` + liveApproval,
		replaceCheck: `SELECT 1 FROM ` + t + ` WHERE id = ? AND ` + liveApproval,
		load:         `SELECT ` + approvalCols + ` FROM ` + t + ` WHERE id = ? AND ` + liveApproval,
		latest:       `SELECT ` + approvalCols + ` FROM ` + t + ` WHERE digest = ? AND latest = 1 AND ` + liveApproval,
		due: `SELECT id FROM ` + t + ` WHERE due IS NOT NULL AND due <= ? AND ` + liveApproval + `
			ORDER BY due, id LIMIT ?`,
		sweep: `DELETE FROM ` + t + ` WHERE rowid IN
			(SELECT rowid FROM ` + t + ` WHERE keep_until IS NOT NULL AND keep_until <= ? LIMIT ` + fmt.Sprint(sqlitedb.SweepBatch) + `)`,
	}
	schema := []string{
		`CREATE TABLE IF NOT EXISTS ` + t + ` (
			id         TEXT    NOT NULL PRIMARY KEY,
			digest     TEXT    NOT NULL,
			latest     INTEGER NOT NULL,
			open       INTEGER NOT NULL,
			due        INTEGER,
			keep_until INTEGER,
			version    INTEGER NOT NULL,
			data       BLOB    NOT NULL
		) STRICT`,
		`CREATE UNIQUE INDEX IF NOT EXISTS ` + t + `_digest ON ` + t + ` (digest) WHERE latest = 1`,
		`CREATE INDEX IF NOT EXISTS ` + t + `_due ON ` + t + ` (due, id) WHERE due IS NOT NULL`,
		`CREATE INDEX IF NOT EXISTS ` + t + `_keep_until ON ` + t + ` (keep_until) WHERE keep_until IS NOT NULL`,
	}
	return q, schema
}

func (s *Store) prepareApprovals(p *sqlitedb.Preparer) {
	q := s.aq
	s.ast = approvalStmts{
		idTaken:      p.Prepare(s.w, q.idTaken),
		latestOpen:   p.Prepare(s.w, q.latestOpen),
		unmark:       p.Prepare(s.w, q.unmark),
		insert:       p.Prepare(s.w, q.insert),
		replace:      p.Prepare(s.w, q.replace),
		replaceCheck: p.Prepare(s.w, q.replaceCheck),
		load:         p.Prepare(s.r, q.load),
		latest:       p.Prepare(s.r, q.latest),
		due:          p.Prepare(s.r, q.due),
		sweep:        p.Prepare(s.w, q.sweep),
	}
}

func (st *approvalStmts) all() []*sql.Stmt {
	return []*sql.Stmt{st.idTaken, st.latestOpen, st.unmark, st.insert, st.replace, st.replaceCheck,
		st.load, st.latest, st.due, st.sweep}
}

// nanos is t as Unix nanoseconds, NULL for the zero time.
func nanos(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixNano(), Valid: true}
}

func fromNanos(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.Unix(0, n.Int64).UTC()
}

// InsertApproval implements store.ApprovalStore.
func (s *Store) InsertApproval(ctx context.Context, row store.ApprovalRow) error {
	return s.inWriteTx(ctx, "insert approval", func(ctx context.Context, tx *sql.Tx) error {
		now := s.now()
		var one int
		err := tx.StmtContext(ctx, s.ast.idTaken).QueryRowContext(ctx, row.ID).Scan(&one)
		if err == nil {
			return store.ErrExists
		} else if !errors.Is(err, sql.ErrNoRows) {
			return wrap("insert approval", err)
		}
		err = tx.StmtContext(ctx, s.ast.latestOpen).QueryRowContext(ctx, row.Digest, now).Scan(&one)
		if err == nil {
			return store.ErrExists
		} else if !errors.Is(err, sql.ErrNoRows) {
			return wrap("insert approval", err)
		}
		if _, err := tx.StmtContext(ctx, s.ast.unmark).ExecContext(ctx, row.Digest); err != nil {
			return wrap("insert approval", err)
		}
		_, err = tx.StmtContext(ctx, s.ast.insert).ExecContext(ctx, row.ID, row.Digest, row.Open,
			nanos(row.Due), nanos(row.KeepUntil), nonNil(row.Data))
		return wrap("insert approval", err)
	})
}

// ReplaceApproval implements store.ApprovalStore.
func (s *Store) ReplaceApproval(ctx context.Context, row store.ApprovalRow) (int64, error) {
	err := s.inWriteTx(ctx, "replace approval", func(ctx context.Context, tx *sql.Tx) error {
		now := s.now()
		res, err := tx.StmtContext(ctx, s.ast.replace).ExecContext(ctx, row.Open, nanos(row.Due), nanos(row.KeepUntil),
			nonNil(row.Data), row.ID, row.Version, now)
		if err != nil {
			return wrap("replace approval", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return wrap("replace approval", err)
		} else if n == 1 {
			return nil
		}
		var one int
		err = tx.StmtContext(ctx, s.ast.replaceCheck).QueryRowContext(ctx, row.ID, now).Scan(&one)
		switch {
		case err == nil:
			return store.ErrConflict
		case errors.Is(err, sql.ErrNoRows):
			return store.ErrNotFound
		default:
			return wrap("replace approval", err)
		}
	})
	if err != nil {
		return 0, err
	}
	return row.Version + 1, nil
}

// LoadApproval implements store.ApprovalStore.
func (s *Store) LoadApproval(ctx context.Context, id string) (store.ApprovalRow, error) {
	return s.readApproval(ctx, "load approval", s.ast.load, id)
}

// LatestApproval implements store.ApprovalStore.
func (s *Store) LatestApproval(ctx context.Context, digest string) (store.ApprovalRow, error) {
	return s.readApproval(ctx, "latest approval", s.ast.latest, digest)
}

func (s *Store) readApproval(ctx context.Context, what string, q *sql.Stmt, key string) (store.ApprovalRow, error) {
	if err := ctx.Err(); err != nil {
		return store.ApprovalRow{}, err
	}
	var (
		row       store.ApprovalRow
		due, keep sql.NullInt64
	)
	err := q.QueryRowContext(ctx, key, s.now()).
		Scan(&row.ID, &row.Digest, &row.Open, &due, &keep, &row.Version, &row.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return store.ApprovalRow{}, store.ErrNotFound
	}
	if err != nil {
		return store.ApprovalRow{}, wrap(what, err)
	}
	row.Due, row.KeepUntil, row.Data = fromNanos(due), fromNanos(keep), nonNil(row.Data)
	return row, nil
}

// DueApprovals implements store.ApprovalStore.
func (s *Store) DueApprovals(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return []string{}, nil
	}
	rows, err := s.ast.due.QueryContext(ctx, now.UnixNano(), s.now(), limit)
	if err != nil {
		return nil, wrap("due approvals", err)
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, wrap("due approvals", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("due approvals", err)
	}
	return ids, nil
}
