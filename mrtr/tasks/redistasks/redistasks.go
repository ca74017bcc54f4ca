// Package redistasks is a tasks.Store on Redis (go-redis v9): every server
// instance that uses the same Redis and key prefix sees the same tasks, and
// a task outlives the instance that created it.
//
// Key layout (P is Options.KeyPrefix, default "mrtr:"): one hash a task,
//
//	P task:<id>   hash  d (the tasks.Record as JSON), v (version), e (expiry, Unix ms)
//
// with a Redis TTL that ends at the record's ExpiresAt: each write sets it
// with PEXPIRE to ExpiresAt minus the store's clock, rounded up to the
// millisecond, which is PEXPIREAT ExpiresAt under the real clock but
// immune to skew between the instance's clock and Redis's, and follows an
// injected clock. Redis deletes expired tasks itself: Sweep deletes
// nothing and reports 0. Reads check the exact ExpiresAt on the record, so
// a record is live strictly before it, also before Redis has dropped the
// key. e serves Create, which replaces a record past it.
//
// Atomicity: Update is optimistic. It reads the record and its version,
// applies fn, and writes the result with a Lua compare-and-set that fails
// if the version changed meanwhile; then it reads again and applies fn
// again to the newer record, up to Options.MaxAttempts times, with a
// randomised backoff between attempts. So fn may run more than once, each
// time on a fresh copy, and the result of its last run is what is stored;
// concurrent Updates of one id lose none. An Update that gives up after
// MaxAttempts conflicts changes nothing. Versions are random per write, so
// a retried script (go-redis retries a command after a network error)
// recognises its own write and succeeds instead of conflicting, and a
// record re-created under the same id is never taken for the old one.
// Create is a Lua insert-if-absent: of concurrent Creates of one id exactly
// one succeeds.
//
// Round trips (the scripts are loaded by New; after SCRIPT FLUSH or a
// restart, the first run of each costs one more): Get 1 (HGET), Create 1
// (EVALSHA), Update 2 (HMGET, EVALSHA) plus 2 per conflict, Sweep 0.
//
// An Update or Create that fails with an error of the connection (not fn's,
// not ErrNotFound, not ErrContention) may have been applied all the same,
// when the reply was lost and go-redis did not retry.
//
// Redis Cluster: each call touches one key, so any prefix works.
package redistasks

import (
	"context"
	crand "crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/redisdb"
	"github.com/mrtrgen/mrtrgen/mrtr/tasks"
)

// Options configure a Store. The zero value is ready to use.
type Options struct {
	// KeyPrefix starts every key. Default "mrtr:".
	KeyPrefix string
	// Now is the store's clock, which decides what has expired. Default
	// time.Now; tests inject their own.
	Now func() time.Time
	// MaxAttempts bounds how often Update tries its compare-and-set when
	// other Updates of the same task win the race. Default 1000.
	MaxAttempts int
}

// DefaultKeyPrefix is the default Options.KeyPrefix.
const DefaultKeyPrefix = "mrtr:"

// ErrContention reports an Update that lost the race to concurrent Updates
// of the same task MaxAttempts times; it changed nothing.
var ErrContention = errors.New("redistasks: too many concurrent updates of the task")

// Backoff between Update attempts: a random wait of up to
// min(maxBackoff, minBackoff·2^attempt), which spreads the contenders out.
const (
	minBackoff = 100 * time.Microsecond
	maxBackoff = 20 * time.Millisecond
)

// createScript: KEYS task key; ARGV data, expiry ms, version, now ms, ttl ms.
// Returns 1 created, 0 a live record has the id.
var createScript = redis.NewScript(`
local cur = redis.call('HMGET', KEYS[1], 'e', 'v')
if cur[2] == ARGV[3] then return 1 end -- a retry of this very Create
if cur[1] and tonumber(cur[1]) > tonumber(ARGV[4]) then return 0 end
redis.call('HSET', KEYS[1], 'd', ARGV[1], 'e', ARGV[2], 'v', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`)

// updateScript: KEYS task key; ARGV version read, new version, data,
// expiry ms, ttl ms. Returns 1 written, 0 the record changed or went since
// it was read.
var updateScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v')
if v == ARGV[2] then return 1 end -- a retry of this very write
if v ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'd', ARGV[3], 'e', ARGV[4], 'v', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`)

// Store is a tasks.Store on Redis. It is safe for concurrent use.
type Store struct {
	rdb         redis.UniversalClient
	ownClient   bool
	prefix      string
	now         func() time.Time
	maxAttempts int

	closeOnce sync.Once
	closeErr  error
}

var _ tasks.Store = (*Store)(nil)

// Open connects to the Redis at url ("redis://[user:pass@]host:port/db",
// "rediss://…" for TLS; see redis.ParseURL) and returns a Store that owns
// its client: Close closes it.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	return redisdb.Open(url, "redistasks", func(rdb *redis.Client) (*Store, error) { return New(ctx, rdb, opts) },
		func(s *Store) { s.ownClient = true })
}

// New returns a Store on rdb and loads its scripts. The caller keeps rdb:
// Close does not close it.
func New(ctx context.Context, rdb redis.UniversalClient, opts Options) (*Store, error) {
	if opts.KeyPrefix == "" {
		opts.KeyPrefix = DefaultKeyPrefix
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 1000
	}
	for _, sc := range []*redis.Script{createScript, updateScript} {
		if err := sc.Load(ctx, rdb).Err(); err != nil {
			return nil, fmt.Errorf("redistasks: load scripts: %w", err)
		}
	}
	return &Store{rdb: rdb, prefix: opts.KeyPrefix, now: opts.Now, maxAttempts: opts.MaxAttempts}, nil
}

// Close closes the client if Open created it. It is safe to call more
// than once.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if s.ownClient {
			s.closeErr = s.rdb.Close()
		}
	})
	return s.closeErr
}

func (s *Store) key(id string) string { return s.prefix + "task:" + id }

// Create implements tasks.Store.
func (s *Store) Create(ctx context.Context, rec *tasks.Record) error {
	if rec == nil {
		return errors.New("redistasks: create task: nil record")
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("redistasks: create task %q: %w", rec.ID, err)
	}
	now := s.now()
	exp := rec.ExpiresAt()
	// A record live at a fraction of a millisecond before its expiry
	// counts as live: Create refuses rather than replaces it.
	n, err := createScript.Run(ctx, s.rdb, []string{s.key(rec.ID)},
		data, ceilMillis(exp), crand.Text(), now.UnixMilli(), ttl(exp, now)).Int()
	if err != nil {
		return fmt.Errorf("redistasks: create task %q: %w", rec.ID, err)
	}
	if n == 0 {
		return fmt.Errorf("redistasks: create task %q: a live task has this id", rec.ID)
	}
	return nil
}

// Get implements tasks.Store.
func (s *Store) Get(ctx context.Context, id string) (*tasks.Record, error) {
	now := s.now()
	data, err := s.rdb.HGet(ctx, s.key(id), "d").Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, tasks.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("redistasks: get task %q: %w", id, err)
	}
	return decodeLive(id, data, now)
}

// Update implements tasks.Store. fn may run more than once (see the
// package doc).
func (s *Store) Update(ctx context.Context, id string, fn func(*tasks.Record) error) (*tasks.Record, error) {
	key := s.key(id)
	for attempt := range s.maxAttempts {
		if attempt > 0 {
			if err := backoff(ctx, attempt); err != nil {
				return nil, fmt.Errorf("redistasks: update task %q: %w", id, err)
			}
		}
		now := s.now()
		cur, err := s.rdb.HMGet(ctx, key, "d", "v").Result()
		if err != nil {
			return nil, fmt.Errorf("redistasks: update task %q: %w", id, err)
		}
		data, okData := cur[0].(string)
		version, okVersion := cur[1].(string)
		if !okData || !okVersion { // nil: no such key
			return nil, tasks.ErrNotFound
		}
		rec, err := decodeLive(id, []byte(data), now)
		if err != nil {
			return nil, err
		}
		if err := fn(rec); err != nil {
			return nil, err
		}
		next, err := json.Marshal(rec)
		if err != nil {
			return nil, fmt.Errorf("redistasks: update task %q: %w", id, err)
		}
		exp := rec.ExpiresAt()
		n, err := updateScript.Run(ctx, s.rdb, []string{key},
			version, crand.Text(), next, ceilMillis(exp), ttl(exp, now)).Int()
		if err != nil {
			return nil, fmt.Errorf("redistasks: update task %q: %w", id, err)
		}
		if n == 1 {
			return rec, nil
		}
	}
	return nil, fmt.Errorf("%w %q (%d attempts)", ErrContention, id, s.maxAttempts)
}

// Sweep implements tasks.Store: Redis deletes expired tasks itself, so it
// does nothing and reports 0.
func (s *Store) Sweep(context.Context, time.Time) (int, error) { return 0, nil }

func backoff(ctx context.Context, attempt int) error {
	limit := min(maxBackoff, minBackoff<<min(attempt, 16))
	t := time.NewTimer(rand.N(limit) + 1)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// decodeLive decodes a record, and reports ErrNotFound if it has expired
// at now (Redis may not have dropped the key yet).
func decodeLive(id string, data []byte, now time.Time) (*tasks.Record, error) {
	var rec tasks.Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("redistasks: task %q: decode record: %w", id, err)
	}
	if !now.Before(rec.ExpiresAt()) {
		return nil, tasks.ErrNotFound
	}
	return &rec, nil
}

// ceilMillis is t in Unix milliseconds, rounded up, so that a record is
// never taken for expired before it is.
func ceilMillis(t time.Time) string {
	ms := t.UnixMilli()
	if time.UnixMilli(ms).Before(t) {
		ms++
	}
	return strconv.FormatInt(ms, 10)
}

// ttl is the key's Redis TTL: from now to exp in milliseconds, rounded up
// so that Redis never drops a live record, and at least 1 for a record
// that is expired already (invisible, and gone a millisecond later).
func ttl(exp, now time.Time) int64 {
	d := exp.Sub(now)
	return max(1, int64((d+time.Millisecond-1)/time.Millisecond))
}
