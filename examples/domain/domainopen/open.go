// Package domainopen opens the example's domain.Store from the URL of the
// mrtr store (memory:, sqlite:PATH, postgres://…, redis://…), keeping its
// data apart from the mrtr store's: its own table (<prefix>example_kv) in
// the same SQLite file or PostgreSQL database, its own keys
// (<prefix>example:…) in the same Redis. <prefix> is the URL's mrtr_prefix
// parameter, empty by default.
//
// It links SQLite (domainsqlite), pgx and go-redis, as storeopen does for the mrtr store;
// package domain itself links none of them.
package domainopen

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mrtrgen/mrtrgen/examples/domain"
	"github.com/mrtrgen/mrtrgen/examples/domain/domainsqlite"
)

// PrefixParam is the URL query parameter whose value prefixes the domain
// table or keys (the same parameter the mrtr store uses, see storeopen).
const PrefixParam = "mrtr_prefix"

// Forms lists the accepted URL forms.
const Forms = `memory:, sqlite:PATH, sqlite::memory:, postgres://…, postgresql://…, redis://…, rediss://…`

// Open opens the domain store named by u, the URL of the mrtr store:
//
//	memory:                      in-process (nothing shared, nothing kept)
//	sqlite:PATH                  table example_kv in that SQLite file
//	postgres://… postgresql://…  table example_kv in that database
//	redis://… rediss://…         keys example:… in that Redis
//
// With mrtr_prefix=P in a postgres or redis URL, the table is Pexample_kv
// and the keys Pexample:….
func Open(ctx context.Context, u string) (domain.Store, error) {
	scheme, rest, ok := strings.Cut(u, ":")
	if !ok {
		return nil, fmt.Errorf("domain: store URL has no scheme; want one of %s", Forms)
	}
	switch strings.ToLower(scheme) {
	case "memory":
		if rest != "" && rest != "//" {
			return nil, fmt.Errorf("domain: want exactly \"memory:\", got memory:%s", rest)
		}
		return domain.NewMemory(), nil
	case "sqlite", "sqlite3":
		path := strings.TrimPrefix(rest, "//")
		if path == "" {
			return nil, errors.New("domain: sqlite: needs a path (sqlite:PATH or sqlite::memory:)")
		}
		return domainsqlite.Open(ctx, path)
	case "postgres", "postgresql":
		clean, prefix, err := takePrefix(u)
		if err != nil {
			return nil, err
		}
		return OpenPostgres(ctx, clean, prefix)
	case "redis", "rediss":
		clean, prefix, err := takePrefix(u)
		if err != nil {
			return nil, err
		}
		return OpenRedis(ctx, clean, prefix)
	}
	if len(scheme) > 20 || strings.ContainsAny(scheme, "/@ ") {
		scheme = scheme[:min(len(scheme), 20)] + "…"
	}
	return nil, fmt.Errorf("domain: unsupported store URL scheme %q; want one of %s", scheme, Forms)
}

// takePrefix removes PrefixParam from u and returns its value.
func takePrefix(u string) (clean, prefix string, err error) {
	p, err := url.Parse(u)
	if err != nil {
		// url.Error repeats the URL, which may hold a password.
		return "", "", fmt.Errorf("domain: malformed %s URL", strings.SplitN(u, ":", 2)[0])
	}
	q := p.Query()
	if !q.Has(PrefixParam) {
		return u, "", nil
	}
	prefix = q.Get(PrefixParam)
	q.Del(PrefixParam)
	p.RawQuery = q.Encode()
	return p.String(), prefix, nil
}
