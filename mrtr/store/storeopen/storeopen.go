// Package storeopen opens a store.Store from a URL, for configuration
// files and command-line flags.
//
// It is the convenience that links every backend (SQLite, pgx and
// go-redis). A program that uses one store imports that backend's package
// (sqlitestore, pgstore or redisstore) and links only its client.
package storeopen

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/pgstore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/redisstore"
	"github.com/mrtrgen/mrtrgen/mrtr/store/sqlitestore"
)

// PrefixParam is the URL query parameter that sets the table prefix
// (PostgreSQL) or key prefix (Redis). It is removed from the URL before the
// driver sees it.
const PrefixParam = "mrtr_prefix"

// Forms lists the accepted URL forms (used in error messages).
const Forms = `memory:, sqlite:PATH, sqlite::memory:, postgres://…, postgresql://…, redis://…, rediss://…`

// Open opens the store named by u:
//
//	memory:                      in-process store (nothing shared, nothing kept)
//	sqlite:PATH                  SQLite file, e.g. sqlite:./mrtr.db, sqlite:/var/lib/mrtr/store.db
//	                             (sqlite:///var/lib/… is accepted too)
//	sqlite::memory:              private in-memory SQLite database
//	postgres://… postgresql://…  PostgreSQL, a pgx connection URL
//	redis://… rediss://…         Redis, a go-redis URL (rediss: TLS)
//
// For postgres and redis, the query parameter mrtr_prefix=… sets the
// table or key prefix (defaults "mrtr_" and "mrtr:").
//
// The store returned is the backend's own type (*store.Memory,
// *sqlitestore.Store, *pgstore.Store, *redisstore.Store), unwrapped: every
// one also keeps approval records, so s.(store.ApprovalStore) holds.
//
// Open starts nothing in the background: expired records (round and effect
// records past their retention, continuations past their TTL) stay until
// the store's Sweep deletes them, so a server runs a sweeper for as long as
// it uses the store, one line next to Open:
//
//	go store.RunSweeper(ctx, st, store.DefaultSweepEvery, func(err error) { log.Print("sweeping the store: ", err) })
//
// Without it a SQLite or PostgreSQL store grows without bound. The
// sweeper's lifetime is the caller's ctx, not Open's (which may be a
// timeout for connecting), and stopping it is part of shutting down.
func Open(ctx context.Context, u string) (store.Store, error) {
	return OpenWithOptions(ctx, u, store.Options{})
}

// OpenWithOptions is Open with the options shared by every store (clock,
// AbandonAfter).
func OpenWithOptions(ctx context.Context, u string, opts store.Options) (store.Store, error) {
	scheme, rest, ok := strings.Cut(u, ":")
	if !ok {
		return nil, fmt.Errorf("storeopen: store URL has no scheme; want one of %s", Forms)
	}
	switch strings.ToLower(scheme) {
	case "memory":
		if rest != "" && rest != "//" {
			return nil, fmt.Errorf("storeopen: want exactly \"memory:\", got memory:%s", rest)
		}
		return store.NewMemory(opts), nil
	case "sqlite", "sqlite3":
		path := strings.TrimPrefix(rest, "//")
		if path == "" {
			return nil, fmt.Errorf("storeopen: sqlite: needs a path (sqlite:PATH or sqlite::memory:)")
		}
		return opened(sqlitestore.Open(ctx, path, sqlitestore.Options{Options: opts}))
	case "postgres", "postgresql":
		clean, prefix, err := TakePrefix(u)
		if err != nil {
			return nil, err
		}
		return opened(pgstore.Open(ctx, clean, pgstore.Options{Options: opts, TablePrefix: prefix}))
	case "redis", "rediss":
		clean, prefix, err := TakePrefix(u)
		if err != nil {
			return nil, err
		}
		return opened(redisstore.Open(ctx, clean, redisstore.Options{Options: opts, KeyPrefix: prefix}))
	}
	// Name only the scheme: the rest may hold a password.
	if len(scheme) > 20 || strings.ContainsAny(scheme, "/@ ") {
		scheme = scheme[:min(len(scheme), 20)] + "…"
	}
	return nil, fmt.Errorf("storeopen: unsupported store URL scheme %q; want one of %s", scheme, Forms)
}

// opened is what a backend's Open returned, as a store.Store: nil, not a
// nil *S in a non-nil interface, with an error.
func opened[S store.Store](s S, err error) (store.Store, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}

// TakePrefix removes PrefixParam from u's query and returns its value
// ("" when u has none), for openers of other stores on the same URL
// (tasksopen).
func TakePrefix(u string) (clean, prefix string, err error) {
	p, err := url.Parse(u)
	if err != nil {
		// url.Error repeats the URL, which may hold a password.
		return "", "", fmt.Errorf("storeopen: malformed %s URL", strings.SplitN(u, ":", 2)[0])
	}
	q := p.Query()
	if !q.Has(PrefixParam) {
		return u, "", nil
	}
	prefix = q.Get(PrefixParam)
	if prefix == "" {
		return "", "", fmt.Errorf("storeopen: empty %s", PrefixParam)
	}
	q.Del(PrefixParam)
	p.RawQuery = q.Encode()
	return p.String(), prefix, nil
}
