// Package redisdb is what mrtr's Redis stores (mrtr/store/redisstore,
// mrtr/tasks/redistasks) share: opening a client from a URL for a store
// that owns it.
package redisdb

import (
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/owner"
)

// Open connects to the Redis at url ("redis://[user:pass@]host:port/db",
// "rediss://…" for TLS; see redis.ParseURL) and returns newStore's store
// on the client, marked by own as the client's owner; when newStore fails,
// it closes the client. An error of url is prefixed with pkg.
func Open[S any](url, pkg string, newStore func(*redis.Client) (S, error), own func(S)) (S, error) {
	ropts, err := redis.ParseURL(url)
	if err != nil {
		var none S
		return none, fmt.Errorf("%s: %w", pkg, err)
	}
	// Deadlines of the caller's context bound every command (the engine
	// gives each store call one): without this, go-redis bounds a command
	// on a dead link only by its read and write timeouts.
	ropts.ContextTimeoutEnabled = true
	rdb := redis.NewClient(ropts)
	return owner.Adopt(rdb, func() { rdb.Close() }, newStore, own)
}
