package domainopen

import (
	"context"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mrtrgen/mrtrgen/examples/domain"
)

// PostgresTable is the domain table's name after the prefix.
const PostgresTable = "example_kv"

var validPGPrefix = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,40}$`)

// schemaLock serialises table creation across instances starting together
// ("mrtrexkv").
const schemaLock = 0x6d72747265786b76

// Postgres is the domain.Store in a PostgreSQL table, shared by every instance
// connected to the database.
type Postgres struct {
	pool  *pgxpool.Pool
	table string
	q     struct{ get, put, insert, update, incr string }
}

var _ domain.Store = (*Postgres)(nil)

// OpenPostgres connects to the database at url (a pgx connection URL) and
// creates the table <prefix>example_kv if needed.
func OpenPostgres(ctx context.Context, url, prefix string) (*Postgres, error) {
	if prefix != "" && !validPGPrefix.MatchString(prefix) {
		return nil, fmt.Errorf("domain: table prefix %q: want lower-case letters, digits and underscores", prefix)
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("domain: postgres: %w", err)
	}
	s := &Postgres{pool: pool, table: prefix + PostgresTable}
	if err := s.createTable(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	t := s.table
	s.q.get = `SELECT v FROM ` + t + ` WHERE k = $1`
	s.q.put = `INSERT INTO ` + t + ` (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v`
	s.q.insert = `INSERT INTO ` + t + ` (k, v) VALUES ($1, $2) ON CONFLICT (k) DO NOTHING`
	s.q.update = `UPDATE ` + t + ` SET v = $1 WHERE k = $2 AND v = $3`
	s.q.incr = `INSERT INTO ` + t + ` AS kv (k, v) VALUES ($1, ($2::bigint)::text) ON CONFLICT (k) DO UPDATE
		SET v = (kv.v::bigint + excluded.v::bigint)::text RETURNING v::bigint`
	return s, nil
}

func (s *Postgres) createTable(ctx context.Context) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLock)); err != nil {
			return fmt.Errorf("domain: postgres: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+s.table+` (k text PRIMARY KEY, v text NOT NULL)`); err != nil {
			return fmt.Errorf("domain: postgres: creating %s: %w", s.table, err)
		}
		return nil
	})
}

func (s *Postgres) Get(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := s.pool.QueryRow(ctx, s.q.get, key).Scan(&v)
	return domain.FoundKV(key, v, err, pgx.ErrNoRows)
}

func (s *Postgres) Put(ctx context.Context, key, value string) error {
	return domain.PutKV(key, value, func() error {
		_, err := s.pool.Exec(ctx, s.q.put, key, value)
		return err
	})
}

func (s *Postgres) Swap(ctx context.Context, key, old, value, counter string) (bool, error) {
	if err := domain.CheckKV(key, value); err != nil {
		return false, err
	}
	swapped := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		var tag interface{ RowsAffected() int64 }
		if old == "" {
			tag, err = tx.Exec(ctx, s.q.insert, key, value)
		} else {
			tag, err = tx.Exec(ctx, s.q.update, value, key, old)
		}
		if err != nil || tag.RowsAffected() != 1 {
			return err
		}
		if counter != "" {
			var n int64
			if err := tx.QueryRow(ctx, s.q.incr, counter, 1).Scan(&n); err != nil {
				return fmt.Errorf("counting %s: %w", counter, err)
			}
		}
		swapped = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("domain: swap %s: %w", key, err)
	}
	return swapped, nil
}

func (s *Postgres) Incr(ctx context.Context, key string, delta int64) (int64, error) {
	return domain.IncrKV(key, func() (n int64, err error) {
		err = s.pool.QueryRow(ctx, s.q.incr, key, delta).Scan(&n)
		return n, err
	})
}

func (s *Postgres) Close() error {
	s.pool.Close()
	return nil
}
