package rivertasks

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	// The SQLite driver River's database/sql driver runs on (OpenSQLite).
	_ "modernc.org/sqlite"
)

// River's migrator applies each pending migration in its own transaction,
// together with its row in river_migration, but reads what is pending
// before: two instances starting at once would both try the same
// migration. On PostgreSQL they take turns under an advisory lock; on
// SQLite, where the file's write lock is the only lock, the loser's
// transaction fails (its river_migration row already exists) and rolls
// back, and it reads again what is pending.

// migratePostgres runs River's migrations in opts.Schema under a session
// advisory lock named after the schema, held on a connection of its own.
func migratePostgres(ctx context.Context, pool *pgxpool.Pool, driver *riverpgxv5.Driver, opts Options) error {
	migrator, err := rivermigrate.New(driver, &rivermigrate.Config{Schema: opts.Schema, Logger: opts.Logger})
	if err != nil {
		return err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquiring a connection for the migration lock: %w", err)
	}
	defer conn.Release()
	lock := "mrtr rivertasks migrations in schema " + opts.Schema
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(hashtextextended($1, 0))", lock); err != nil {
		return fmt.Errorf("taking the migration lock: %w", err)
	}
	defer unlockOrClose(conn.Conn(), lock)
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("schema %q: %w", opts.Schema, err)
	}
	return nil
}

// unlockOrClose releases the advisory lock lock held by conn, or closes
// conn if it cannot (the session's end releases it), so that the lock
// never stays with a connection back in the pool.
func unlockOrClose(conn *pgx.Conn, lock string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock(hashtextextended($1, 0))", lock); err != nil {
		_ = conn.Close(ctx)
	}
}

// sqliteMigrateTries bounds the rounds of migrateSQLite: each failed round
// lost a race against an instance that applied at least one migration, so
// the rounds are at most one more than River's migrations (8 in v0.51).
const sqliteMigrateTries = 20

// migrateSQLite runs River's migrations on db, again while a round fails:
// another process applied the migration it tried. The first statement on
// a new connection may also fail with SQLITE_BUSY without waiting: it
// switches the file to WAL (OpenSQLite's journal_mode), which SQLite does
// not queue for while another process holds the file; it is tried again
// the same way.
func migrateSQLite(ctx context.Context, db *sql.DB, driver *riversqlite.Driver, opts Options) error {
	migrator, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: opts.Logger})
	if err != nil {
		return err
	}
	var busy int
	if err := againWhileFailing(ctx, func() error {
		return db.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy)
	}); err != nil {
		return fmt.Errorf("reading busy_timeout: %w", err)
	}
	if busy == 0 {
		opts.Logger.WarnContext(ctx, "rivertasks: SQLite database opened without a busy timeout: "+
			"another process sharing the file makes River fail with SQLITE_BUSY (see OpenSQLite)")
	}
	return againWhileFailing(ctx, func() error {
		_, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
		return err
	})
}

// againWhileFailing runs fn until it succeeds, sqliteMigrateTries times,
// or ctx ends, waiting a little longer after each failure.
func againWhileFailing(ctx context.Context, fn func() error) error {
	for try := 1; ; try++ {
		err := fn()
		if err == nil || try == sqliteMigrateTries || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(try) * 10 * time.Millisecond):
		}
	}
}

// OpenSQLite opens the SQLite database file path for an executor, with
// the modernc.org/sqlite driver, as River wants it when processes share the
// file: one connection (River runs its operations concurrently, and a
// second connection of the same process would only wait for the first),
// immediate transactions (BEGIN IMMEDIATE: a transaction takes the write
// lock when it begins, so two processes queue instead of failing when
// both upgrade a read to a write), a 10 s busy timeout to queue on, and
// WAL so that readers do not wait for the writer (synchronous FULL: a
// committed Enqueue survives a power loss).
func OpenSQLite(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+
		"?_txlock=immediate&_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)")
	if err != nil {
		return nil, fmt.Errorf("rivertasks: opening SQLite database %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}
