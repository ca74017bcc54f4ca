// Package pgschema is what mrtr's PostgreSQL stores (mrtr/store/pgstore,
// mrtr/tasks/pgtasks) share: the rule for table prefixes, opening a pool
// for a store that owns it, and creating a schema safely when several
// instances start at once.
package pgschema

import (
	"context"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/owner"
)

// validPrefix leaves room for the longest suffix a store appends (an index
// name such as "states_expires_at") within PostgreSQL's 63-byte names.
var validPrefix = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,40}$`)

// CheckPrefix reports whether prefix may start table and index names:
// lower-case letters, digits and underscores, starting with a letter or an
// underscore, at most 41 characters. The prefix is spliced into SQL text,
// so nothing else is allowed.
func CheckPrefix(prefix string) error {
	if !validPrefix.MatchString(prefix) {
		return fmt.Errorf("invalid table prefix %q (want [a-z_][a-z0-9_]*, at most 41 characters)", prefix)
	}
	return nil
}

// Open connects to the database at url (a pgx connection string) and
// returns newStore's store on the pool, marked by own as the pool's owner;
// when newStore fails, it closes the pool. An error of url or of
// connecting is prefixed with pkg.
func Open[S any](ctx context.Context, url, pkg string, newStore func(*pgxpool.Pool) (S, error), own func(S)) (S, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		var none S
		return none, fmt.Errorf("%s: %w", pkg, err)
	}
	return owner.Adopt(pool, pool.Close, newStore, own)
}

// lockID is the pg_advisory_xact_lock key that serialises schema creation
// across instances and stores ("mrtrschd").
const lockID = 0x6d72747273636864

// Create runs ddl (CREATE … IF NOT EXISTS statements) in one transaction
// under an advisory lock. CREATE … IF NOT EXISTS alone is not safe against
// a concurrent CREATE of the same name (it fails on a duplicate pg_type
// key), so instances that start together must take turns.
func Create(ctx context.Context, pool *pgxpool.Pool, ddl string) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(lockID)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, ddl)
		return err
	})
}
