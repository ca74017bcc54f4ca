package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

// Defaults used when the override variables are unset.
const (
	DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	DefaultRedisURL    = "redis://127.0.0.1:6379/0"

	PostgresURLEnv = "MRTR_TEST_POSTGRES_URL"
	RedisURLEnv    = "MRTR_TEST_REDIS_URL"
)

var (
	probeMu sync.Mutex
	probed  = map[string]error{} // URL → result of the first probe
)

// PostgresURL returns the URL of the test PostgreSQL server
// ($MRTR_TEST_POSTGRES_URL, default DefaultPostgresURL) after checking that
// it answers. If it does not, the test is skipped, or fails when $CI is set
// (a CI run must not silently skip the shared-store tests).
func PostgresURL(t testing.TB) string {
	t.Helper()
	u := envOr(PostgresURLEnv, DefaultPostgresURL)
	err := probe(u, func(ctx context.Context) error {
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		return conn.Ping(ctx)
	})
	if err != nil {
		unavailable(t, "PostgreSQL", PostgresURLEnv, u, err,
			"start one (e.g. docker run -d -p 5432:5432 -e POSTGRES_HOST_AUTH_METHOD=trust -e POSTGRES_DB=test postgres:17)")
	}
	return u
}

// RedisURL returns the URL of the test Redis server ($MRTR_TEST_REDIS_URL,
// default DefaultRedisURL) after checking that it answers PING, with the
// same skip / fail-under-CI rule as PostgresURL.
func RedisURL(t testing.TB) string {
	t.Helper()
	u := envOr(RedisURLEnv, DefaultRedisURL)
	err := probe(u, func(ctx context.Context) error {
		opts, err := redis.ParseURL(u)
		if err != nil {
			return err
		}
		opts.MaxRetries = -1
		c := redis.NewClient(opts)
		defer c.Close()
		return c.Ping(ctx).Err()
	})
	if err != nil {
		unavailable(t, "Redis", RedisURLEnv, u, err,
			"start one (e.g. docker run -d -p 6379:6379 redis:7)")
	}
	return u
}

// InCI reports whether $CI is set (to anything but "", "0" or "false").
func InCI() bool {
	switch strings.ToLower(os.Getenv("CI")) {
	case "", "0", "false":
		return false
	}
	return true
}

// UniqueName returns a fresh name safe as an SQL identifier part and a Redis
// key part ("t" + 16 hex digits), for isolating a test's tables or keys.
func UniqueName() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return "t" + hex.EncodeToString(b[:])
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func probe(u string, ping func(context.Context) error) error {
	probeMu.Lock()
	defer probeMu.Unlock()
	if err, ok := probed[u]; ok {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := ping(ctx)
	probed[u] = err
	return err
}

func unavailable(t testing.TB, service, env, u string, err error, hint string) {
	t.Helper()
	msg := fmt.Sprintf("%s not reachable at %s: %v\n\t%s, or point $%s at a reachable server",
		service, Redact(u), err, hint, env)
	if InCI() {
		t.Fatalf("%s\n\t($CI is set, so this test fails instead of skipping)", msg)
	}
	t.Skipf("%s\n\t(skipping; with $CI set this fails)", msg)
}

// Redact returns u with any password replaced by "xxxxx", for messages.
func Redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "<unparsable URL>"
	}
	return p.Redacted()
}
