// Package redisstore is the store.Store on Redis (go-redis v9), for
// several server instances sharing one Redis.
//
// Key layout (P is Options.KeyPrefix, default "mrtr:"):
//
//	P op:<key>        hash  fp, own, st ("p" pending | "d" done), lease, exp, res
//	P st:<ref>        hash  wf, sub, pr, data, exp
//	P wf:<workflow>   set   refs of the workflow's continuation records
//	P exp             zset  member: full record key, score: its exp
//	P ap:<id>, P apd:<digest>, P apdue: approval records (approvals.go)
//
// Times are Unix milliseconds of the store's clock (Options.Now), passed to
// the scripts by the caller, so leases and TTLs follow the injected clock
// exactly; exp is the logical end of a record (retention end, state TTL,
// or lease + AbandonAfter for a pending claim) and a record past it is
// dead for every reader. Every key also gets a PX TTL of exp - now +
// Options.Backstop, so that Redis drops what nobody sweeps; the exp zset
// lets Sweep find (and count) dead records without scanning the keyspace.
//
// Every operation is one round trip: Claim, Complete, Release, PutState,
// DeleteWorkflowStates run one Lua script each (EVALSHA; the scripts are
// loaded on New; after a SCRIPT FLUSH or a restart the first call of each
// script pays one extra round trip), GetState is one HMGET. The claim
// script is the atomic insert-if-absent (the SET NX step) together with the
// fingerprint check and the takeover of a lapsed lease, so that even the
// contended paths (replay, in-flight, mismatch, takeover) take a single
// round trip; a plain SET NX PX followed by a script on conflict would
// need two there and could not maintain the sweep index atomically.
//
// Retried commands are safe: go-redis retries a command after a network
// error, and a script that already ran answers the retry consistently (the
// same owner claiming again gets Acquired, a repeated Complete by the owner
// succeeds, Release and PutState are idempotent).
//
// Redis Cluster: scripts touch several keys of the store, so all of them
// must live in one slot: use a prefix with a hash tag, e.g. "{mrtr}:".
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mrtrgen/mrtrgen/mrtr/internal/redisdb"
	"github.com/mrtrgen/mrtrgen/mrtr/internal/storecall"
	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Options configure a Store. The zero value is ready to use.
type Options struct {
	store.Options
	// KeyPrefix is prepended to every key. Default "mrtr:". Tests use a
	// unique prefix each.
	KeyPrefix string
	// Backstop is added to each key's PX TTL beyond its logical expiry,
	// so that records are dropped by Redis even if nobody sweeps, while
	// Sweep (and the injected clock in tests) decide what is expired.
	// Default 1h.
	Backstop time.Duration
}

// DefaultKeyPrefix is the default Options.KeyPrefix.
const DefaultKeyPrefix = "mrtr:"

const sweepBatch = 500

// Store is a store.Store on Redis.
type Store struct {
	rdb       redis.UniversalClient
	ownClient bool
	opts      Options
	expKey    string

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

var _ store.Store = (*Store)(nil)

// The record operations are Lua functions (lua.go), shared by the script
// of each Store method and by the batch script (batch.go), so that a
// batch has exactly the semantics of the single calls.

// Claim: KEYS op key, exp zset; ARGV fp, owner, now, lease until, exp, px.
// Returns {1, takeover} acquired (takeover 1 when a lapsed claim of another
// owner was taken over), {2, result} replayed, {3, lease} in flight,
// {4} mismatch.
var claimScript = redis.NewScript(luaClaim + `
return claim(KEYS[1], KEYS[2], ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5], ARGV[6])
`)

// Complete: KEYS op key, exp zset; ARGV owner, now, exp, px, result.
// Returns 1 done (now or before, by this owner), 0 lease lost.
var completeScript = redis.NewScript(luaComplete + `
return complete(KEYS[1], KEYS[2], ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5])
`)

// Release: KEYS op key, exp zset; ARGV owner.
var releaseScript = redis.NewScript(luaRelease + `
return release(KEYS[1], KEYS[2], ARGV[1])
`)

// PutState: KEYS state key, exp zset, workflow set; ARGV ref, workflow,
// subject, principal, data, exp, px, prefix.
var putStateScript = redis.NewScript(luaPutState + `
return putState(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8])
`)

// DeleteWorkflowStates: KEYS workflow set, exp zset; ARGV prefix, workflow.
// A ref whose record moved to another workflow is left alone.
var deleteWorkflowScript = redis.NewScript(luaDeleteWorkflow + `
return deleteWorkflow(KEYS[1], KEYS[2], ARGV[1], ARGV[2])
`)

// Sweep: KEYS exp zset; ARGV now, batch, prefix. Deletes up to batch dead
// records (with their index entries: a continuation's in its workflow
// set, an approval's in apdue and its digest pointer if it points at it)
// and returns {deleted, index entries looked at}.
var sweepScript = redis.NewScript(`
local now = tonumber(ARGV[1])
local members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local stp = ARGV[3] .. 'st:'
local app = ARGV[3] .. 'ap:'
local n = 0
for _, k in ipairs(members) do
	local r = redis.call('HMGET', k, 'exp', 'wf', 'dg')
	if not r[1] then
		redis.call('ZREM', KEYS[1], k)
		if string.sub(k, 1, #app) == app then -- dropped by its backstop TTL
			redis.call('ZREM', ARGV[3] .. 'apdue', string.sub(k, #app + 1))
		end
	elseif tonumber(r[1]) <= now then
		redis.call('DEL', k)
		redis.call('ZREM', KEYS[1], k)
		n = n + 1
		if r[2] and string.sub(k, 1, #stp) == stp then
			redis.call('SREM', ARGV[3] .. 'wf:' .. r[2], string.sub(k, #stp + 1))
		end
		if r[3] and string.sub(k, 1, #app) == app then
			local id = string.sub(k, #app + 1)
			redis.call('ZREM', ARGV[3] .. 'apdue', id)
			local dk = ARGV[3] .. 'apd:' .. r[3]
			if redis.call('GET', dk) == id then
				redis.call('DEL', dk)
			end
		end
	end
end
return {n, #members}
`)

var allScripts = append([]*redis.Script{claimScript, completeScript, releaseScript, putStateScript, deleteWorkflowScript,
	sweepScript, batchScript}, approvalScripts...)

// Open connects to the Redis at url ("redis://[user:pass@]host:port/db",
// "rediss://…" for TLS; see redis.ParseURL) and returns a Store that owns
// (and on Close closes) its client.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	return redisdb.Open(url, "redisstore", func(rdb *redis.Client) (*Store, error) { return New(ctx, rdb, opts) },
		func(s *Store) { s.ownClient = true })
}

// New returns a Store on rdb and loads its scripts. The caller keeps
// ownership of rdb: Close does not close it.
func New(ctx context.Context, rdb redis.UniversalClient, opts Options) (*Store, error) {
	opts.Options = opts.Options.WithDefaults()
	if opts.KeyPrefix == "" {
		opts.KeyPrefix = DefaultKeyPrefix
	}
	if opts.Backstop <= 0 {
		opts.Backstop = time.Hour
	}
	for _, sc := range allScripts {
		if err := sc.Load(ctx, rdb).Err(); err != nil {
			return nil, fmt.Errorf("redisstore: load scripts: %w", err)
		}
	}
	return &Store{rdb: rdb, opts: opts, expKey: opts.KeyPrefix + "exp"}, nil
}

// Client returns the store's Redis client.
func (s *Store) Client() redis.UniversalClient { return s.rdb }

// KeyPrefix returns the prefix of the store's keys.
func (s *Store) KeyPrefix() string { return s.opts.KeyPrefix }

func (s *Store) opKey(key string) string      { return s.opts.KeyPrefix + "op:" + key }
func (s *Store) stateKey(ref string) string   { return s.opts.KeyPrefix + "st:" + ref }
func (s *Store) workflowKey(wf string) string { return s.opts.KeyPrefix + "wf:" + wf }
func (s *Store) now() int64                   { return s.opts.Now().UnixMilli() }
func itoa(n int64) string                     { return strconv.FormatInt(n, 10) }

// ms converts d to whole milliseconds, rounding up so that a positive
// duration never becomes 0.
func ms(d time.Duration) int64 { return int64((d + time.Millisecond - 1) / time.Millisecond) }

func (s *Store) px(exp, now int64) string { return itoa(exp - now + ms(s.opts.Backstop)) }

// begin is what every call checks first (storecall.Begin): invalid, the
// validation error of its arguments, then ctx, then whether s is closed.
func (s *Store) begin(ctx context.Context, invalid error) error {
	return storecall.Begin(ctx, invalid, &s.closed)
}

// Claim implements store.Store.
func (s *Store) Claim(ctx context.Context, req store.ClaimRequest) (store.ClaimResult, error) {
	if err := s.begin(ctx, store.ValidateClaim(req)); err != nil {
		return store.ClaimResult{}, err
	}
	now := s.now()
	lease := now + ms(req.Lease)
	exp := lease + ms(s.opts.AbandonAfter)
	v, err := claimScript.Run(ctx, s.rdb, []string{s.opKey(req.Key), s.expKey},
		req.Fingerprint, req.Owner, itoa(now), itoa(lease), itoa(exp), s.px(exp, now)).Slice()
	if err != nil {
		return store.ClaimResult{}, wrap("claim", err)
	}
	return claimResult(v)
}

// Complete implements store.Store.
func (s *Store) Complete(ctx context.Context, key, owner string, result []byte, retain time.Duration) error {
	if err := s.begin(ctx, store.ValidateComplete(key, owner, retain)); err != nil {
		return err
	}
	now := s.now()
	exp := now + ms(retain)
	if result == nil {
		result = []byte{}
	}
	n, err := completeScript.Run(ctx, s.rdb, []string{s.opKey(key), s.expKey},
		owner, itoa(now), itoa(exp), s.px(exp, now), result).Int64()
	if err != nil {
		return wrap("complete", err)
	}
	if n != 1 {
		return store.ErrLeaseLost
	}
	return nil
}

// Release implements store.Store.
func (s *Store) Release(ctx context.Context, key, owner string) error {
	if err := s.begin(ctx, store.ValidateRelease(key, owner)); err != nil {
		return err
	}
	return wrap("release", releaseScript.Run(ctx, s.rdb, []string{s.opKey(key), s.expKey}, owner).Err())
}

// PutState implements store.Store.
func (s *Store) PutState(ctx context.Context, rec store.StateRecord, ttl time.Duration) error {
	if err := s.begin(ctx, store.ValidateState(rec, ttl)); err != nil {
		return err
	}
	now := s.now()
	exp := now + ms(ttl)
	data := rec.Data
	if data == nil {
		data = []byte{}
	}
	err := putStateScript.Run(ctx, s.rdb,
		[]string{s.stateKey(rec.Ref), s.expKey, s.workflowKey(rec.Workflow)},
		rec.Ref, rec.Workflow, rec.Subject, rec.Principal, data, itoa(exp), s.px(exp, now), s.opts.KeyPrefix).Err()
	return wrap("put state", err)
}

// GetState implements store.Store.
func (s *Store) GetState(ctx context.Context, ref string) (store.StateRecord, error) {
	if err := storecall.BeginRef(ctx, ref, &s.closed); err != nil {
		return store.StateRecord{}, err
	}
	v, err := s.rdb.HMGet(ctx, s.stateKey(ref), "wf", "sub", "pr", "data", "exp").Result()
	if err != nil {
		return store.StateRecord{}, wrap("get state", err)
	}
	str := func(i int) string { x, _ := v[i].(string); return x }
	exp, err := strconv.ParseInt(str(4), 10, 64)
	if v[4] == nil || err != nil || exp <= s.now() {
		return store.StateRecord{}, store.ErrNotFound
	}
	return store.StateRecord{
		Ref:       ref,
		Workflow:  str(0),
		Subject:   str(1),
		Principal: str(2),
		Data:      append([]byte{}, str(3)...),
	}, nil
}

// DeleteWorkflowStates implements store.Store.
func (s *Store) DeleteWorkflowStates(ctx context.Context, workflow string) error {
	if err := s.begin(ctx, store.ValidateWorkflow(workflow)); err != nil {
		return err
	}
	err := deleteWorkflowScript.Run(ctx, s.rdb, []string{s.workflowKey(workflow), s.expKey},
		s.opts.KeyPrefix, workflow).Err()
	return wrap("delete workflow states", err)
}

// Sweep implements store.Store: it deletes records past their logical
// expiry, at most 500 per script call, and drops index entries of keys
// Redis already expired (those are not counted).
func (s *Store) Sweep(ctx context.Context) (int, error) {
	if err := s.begin(ctx, nil); err != nil {
		return 0, err
	}
	now := itoa(s.now())
	total := 0
	for {
		v, err := sweepScript.Run(ctx, s.rdb, []string{s.expKey}, now, sweepBatch, s.opts.KeyPrefix).Int64Slice()
		if err != nil {
			return total, wrap("sweep", err)
		}
		if len(v) != 2 {
			return total, fmt.Errorf("redisstore: sweep: unexpected script reply %v", v)
		}
		total += int(v[0])
		if v[1] < sweepBatch {
			return total, nil
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
	}
}

// Close makes the store unusable (later calls fail with store.ErrClosed)
// and closes the client if Open created it. It is safe to call more than
// once.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		if s.ownClient {
			s.closeErr = s.rdb.Close()
		}
	})
	return s.closeErr
}

// DeleteKeys deletes every key that starts with prefix (for tests and
// teardown) and returns how many it deleted. It SCANs, so it is slow on a
// big keyspace; never use it with an empty prefix.
func DeleteKeys(ctx context.Context, rdb redis.UniversalClient, prefix string) (int, error) {
	if prefix == "" {
		return 0, errors.New("redisstore: DeleteKeys needs a non-empty prefix")
	}
	pattern := globEscape(prefix) + "*"
	n := 0
	var cursor uint64
	for {
		keys, next, err := rdb.Scan(ctx, cursor, pattern, 1000).Result()
		if err != nil {
			return n, err
		}
		if len(keys) > 0 {
			d, err := rdb.Del(ctx, keys...).Result()
			if err != nil {
				return n, err
			}
			n += int(d)
		}
		if next == 0 {
			return n, nil
		}
		cursor = next
	}
}

func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[', ']', '\\', '^', '-':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("redisstore: %s: %w", op, err)
}
