package domainopen

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/mrtrgen/mrtrgen/examples/domain"
)

// RedisPrefix is the domain keys' prefix after the URL's mrtr_prefix.
const RedisPrefix = "example:"

// Redis is the domain.Store in Redis, shared by every instance connected to it.
// Keys are <prefix>example:<key>; Swap is one Lua script, so the change and
// its count are atomic. (A Redis Cluster would need the record and its
// counter in one hash slot; the example targets a single Redis.)
type Redis struct {
	rdb    *redis.Client
	prefix string
}

var _ domain.Store = (*Redis)(nil)

// swapScript: KEYS[1] record, KEYS[2] counter (optional);
// ARGV[1] old ("" = absent), ARGV[2] new value.
var swapScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if ARGV[1] == '' then
  if cur then return 0 end
elseif cur ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[2])
if KEYS[2] then redis.call('INCRBY', KEYS[2], 1) end
return 1
`)

// OpenRedis connects to the Redis at url (a go-redis URL) and checks that
// it answers.
func OpenRedis(ctx context.Context, url, prefix string) (*Redis, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, errors.New("domain: malformed redis URL")
	}
	rdb := redis.NewClient(opts)
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		return nil, fmt.Errorf("domain: redis: %w", err)
	}
	return &Redis{rdb: rdb, prefix: prefix + RedisPrefix}, nil
}

func (s *Redis) Get(ctx context.Context, key string) (string, bool, error) {
	v, err := s.rdb.Get(ctx, s.prefix+key).Result()
	return domain.FoundKV(key, v, err, redis.Nil)
}

func (s *Redis) Put(ctx context.Context, key, value string) error {
	return domain.PutKV(key, value, func() error { return s.rdb.Set(ctx, s.prefix+key, value, 0).Err() })
}

func (s *Redis) Swap(ctx context.Context, key, old, value, counter string) (bool, error) {
	if err := domain.CheckKV(key, value); err != nil {
		return false, err
	}
	keys := []string{s.prefix + key}
	if counter != "" {
		keys = append(keys, s.prefix+counter)
	}
	n, err := swapScript.Run(ctx, s.rdb, keys, old, value).Int()
	if err != nil {
		return false, fmt.Errorf("domain: swap %s: %w", key, err)
	}
	return n == 1, nil
}

func (s *Redis) Incr(ctx context.Context, key string, delta int64) (int64, error) {
	return domain.IncrKV(key, func() (int64, error) { return s.rdb.IncrBy(ctx, s.prefix+key, delta).Result() })
}

func (s *Redis) Close() error { return s.rdb.Close() }
