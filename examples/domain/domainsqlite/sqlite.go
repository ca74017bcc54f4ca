// Package domainsqlite is the example's domain.Store in a SQLite file (pure
// Go, modernc.org/sqlite), in a package of its own so that a server on the
// embedded stores links no PostgreSQL or Redis client (domainopen links all
// three).
package domainsqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	_ "modernc.org/sqlite" // database/sql driver "sqlite"

	"github.com/mrtrgen/mrtrgen/examples/domain"
)

// Table is the domain table in a SQLite file (next to the mrtr
// store's tables).
const Table = "example_kv"

// Store is the domain.Store in a SQLite file, shared by every process that opens
// the file. Swaps are BEGIN IMMEDIATE transactions; all writers (these and
// the mrtr store's) wait for each other with a busy timeout.
type Store struct {
	db *sql.DB
	q  struct{ get, put, insert, update, incr string }
}

var _ domain.Store = (*Store)(nil)

// Open opens (creating if needed) the domain table in the SQLite
// database at path (":memory:" for a private in-memory database).
func Open(ctx context.Context, path string) (*Store, error) {
	if strings.ContainsRune(path, '?') || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("domain: want a plain SQLite file path, got %q", path)
	}
	dsn := path + "?_txlock=immediate&_pragma=busy_timeout(10000)"
	if path != ":memory:" {
		dsn += "&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("domain: sqlite: %w", err)
	}
	if path == ":memory:" {
		// Every connection to ":memory:" is another database: keep one.
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		db.SetConnMaxLifetime(0)
		db.SetConnMaxIdleTime(0)
	} else {
		db.SetMaxOpenConns(4)
		db.SetMaxIdleConns(4)
	}
	t := Table
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+t+` (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID`); err != nil {
		db.Close()
		return nil, fmt.Errorf("domain: sqlite %s: %w", path, err)
	}
	s := &Store{db: db}
	s.q.get = `SELECT v FROM ` + t + ` WHERE k = ?`
	s.q.put = `INSERT INTO ` + t + ` (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`
	s.q.insert = `INSERT INTO ` + t + ` (k, v) VALUES (?, ?) ON CONFLICT (k) DO NOTHING`
	s.q.update = `UPDATE ` + t + ` SET v = ? WHERE k = ? AND v = ?`
	s.q.incr = `INSERT INTO ` + t + ` (k, v) VALUES (?, CAST(? AS TEXT)) ON CONFLICT (k) DO UPDATE
		SET v = CAST(CAST(` + t + `.v AS INTEGER) + CAST(excluded.v AS INTEGER) AS TEXT) RETURNING CAST(v AS INTEGER)`
	return s, nil
}

func (s *Store) Get(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := s.db.QueryRowContext(ctx, s.q.get, key).Scan(&v)
	return domain.FoundKV(key, v, err, sql.ErrNoRows)
}

func (s *Store) Put(ctx context.Context, key, value string) error {
	return domain.PutKV(key, value, func() error {
		_, err := s.db.ExecContext(ctx, s.q.put, key, value)
		return err
	})
}

func (s *Store) Swap(ctx context.Context, key, old, value, counter string) (swapped bool, err error) {
	if err := domain.CheckKV(key, value); err != nil {
		return false, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("domain: swap %s: %w", key, err)
	}
	defer func() {
		if !swapped || err != nil {
			tx.Rollback()
		}
	}()
	var res sql.Result
	if old == "" {
		res, err = tx.ExecContext(ctx, s.q.insert, key, value)
	} else {
		res, err = tx.ExecContext(ctx, s.q.update, value, key, old)
	}
	if err != nil {
		return false, fmt.Errorf("domain: swap %s: %w", key, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return false, err
	}
	if counter != "" {
		var n int64
		if err := tx.QueryRowContext(ctx, s.q.incr, counter, 1).Scan(&n); err != nil {
			return false, fmt.Errorf("domain: swap %s: counting %s: %w", key, counter, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("domain: swap %s: %w", key, err)
	}
	return true, nil
}

func (s *Store) Incr(ctx context.Context, key string, delta int64) (int64, error) {
	return domain.IncrKV(key, func() (n int64, err error) {
		err = s.db.QueryRowContext(ctx, s.q.incr, key, delta).Scan(&n)
		return n, err
	})
}

func (s *Store) Close() error { return s.db.Close() }
