package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

// Approval records (store.ApprovalStore), under the store's prefix P:
//
//	P ap:<id>       hash    dg (digest), open ("1" | "0"), due, exp, ver, data
//	P apd:<digest>  string  the id of the latest record inserted for digest
//	P apdue         zset    member: id, score: due (records with a timer)
//	P exp           zset    (the store's) member: P ap:<id>, score: exp
//
// due and exp (the record's KeepUntil) are Unix milliseconds of the
// store's clock, rounded up (a timer never fires, a record never goes,
// before its time), absent for the zero time; a record whose exp has
// passed is dead for every reader, and Sweep deletes it with its index
// entries, counting it. A record with a KeepUntil gets the PX TTL of the
// other records (exp - now + Options.Backstop), and so does the digest
// pointer while it points at it; a record without one is kept until a
// ReplaceApproval gives it one (no TTL: it is the authority for an
// action, Redis must not drop it behind the store's back).
//
// Every call is one round trip: the writes and LatestApproval run one Lua
// script each, so an insert reads the digest's latest record and writes
// atomically, and ReplaceApproval compares the version and writes
// atomically; LoadApproval is one HMGET. DueApprovals reads the apdue
// zset in score order (ties by id, as the zset orders equal scores), in a
// script that skips dead records.

var _ store.ApprovalStore = (*Store)(nil)

// InsertApproval: KEYS record, digest pointer, apdue zset, exp zset; ARGV
// id, digest, open, due ("" none), exp ("" none), data, now, record key
// prefix, px ("" none). Returns 1 inserted, 0 refused (the id exists, or the digest's
// latest record is live and open).
var insertApprovalScript = redis.NewScript(`
local k, dk, dz, z = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id, due, exp, now = ARGV[1], ARGV[4], ARGV[5], tonumber(ARGV[7])
if redis.call('EXISTS', k) == 1 then
	return 0
end
local latest = redis.call('GET', dk)
if latest then
	local r = redis.call('HMGET', ARGV[8] .. latest, 'open', 'exp')
	if r[1] == '1' and (not r[2] or tonumber(r[2]) > now) then
		return 0
	end
end
redis.call('HSET', k, 'dg', ARGV[2], 'open', ARGV[3], 'ver', 1, 'data', ARGV[6])
if due ~= '' then
	redis.call('HSET', k, 'due', due)
	redis.call('ZADD', dz, due, id)
end
if exp ~= '' then
	redis.call('HSET', k, 'exp', exp)
	redis.call('ZADD', z, exp, k)
end
redis.call('SET', dk, id)
if ARGV[9] ~= '' then
	redis.call('PEXPIRE', k, ARGV[9])
	redis.call('PEXPIRE', dk, ARGV[9])
end
return 1
`)

// ReplaceApproval: KEYS record, apdue zset, exp zset; ARGV id, version,
// open, due ("" none), exp ("" none), data, now, px ("" none), prefix. Returns the new version,
// -1 not found (or dead), -2 another version.
var replaceApprovalScript = redis.NewScript(`
local k, dz, z = KEYS[1], KEYS[2], KEYS[3]
local id, due, exp, now = ARGV[1], ARGV[4], ARGV[5], tonumber(ARGV[7])
local r = redis.call('HMGET', k, 'ver', 'exp', 'dg')
if not r[1] or (r[2] and tonumber(r[2]) <= now) then
	return -1
end
if tonumber(r[1]) ~= tonumber(ARGV[2]) then
	return -2
end
local v = tonumber(r[1]) + 1
redis.call('HSET', k, 'open', ARGV[3], 'ver', v, 'data', ARGV[6])
-- the record's field f and its entry in the zset zs: score v, or none
local function index(f, v, zs, member)
	if v ~= '' then
		redis.call('HSET', k, f, v)
		redis.call('ZADD', zs, v, member)
	else
		redis.call('HDEL', k, f)
		redis.call('ZREM', zs, member)
	end
end
index('due', due, dz, id)
index('exp', exp, z, k)
local dk = ARGV[9] .. 'apd:' .. r[3]
local pointed = redis.call('GET', dk) == id
if ARGV[8] ~= '' then
	redis.call('PEXPIRE', k, ARGV[8])
	if pointed then
		redis.call('PEXPIRE', dk, ARGV[8])
	end
else
	redis.call('PERSIST', k)
	if pointed then
		redis.call('PERSIST', dk)
	end
end
return v
`)

// LatestApproval: KEYS digest pointer; ARGV record key prefix. Returns {}
// when the digest points nowhere, else {id, dg, open, due, exp, ver, data}
// of the record it points at (all nil when the record is gone).
var latestApprovalScript = redis.NewScript(`
local id = redis.call('GET', KEYS[1])
if not id then
	return {}
end
local r = redis.call('HMGET', ARGV[1] .. id, 'dg', 'open', 'due', 'exp', 'ver', 'data')
return {id, r[1], r[2], r[3], r[4], r[5], r[6]}
`)

// DueApprovals: KEYS apdue zset; ARGV due by, limit, now, record key
// prefix. Returns the ids of up to limit live records due by then, in
// score order.
var dueApprovalsScript = redis.NewScript(`
local dz, by, limit, now, rp = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local out, off = {}, 0
local batch = math.max(limit, 100)
while #out < limit do
	local ids = redis.call('ZRANGEBYSCORE', dz, '-inf', by, 'LIMIT', off, batch)
	if #ids == 0 then
		break
	end
	for _, id in ipairs(ids) do
		local r = redis.call('HMGET', rp .. id, 'ver', 'exp')
		if r[1] and (not r[2] or tonumber(r[2]) > now) then
			out[#out + 1] = id
			if #out == limit then
				break
			end
		end
	end
	off = off + #ids
end
return out
`)

var approvalScripts = []*redis.Script{insertApprovalScript, replaceApprovalScript, latestApprovalScript, dueApprovalsScript}

func (s *Store) approvalKey(id string) string   { return s.opts.KeyPrefix + "ap:" + id }
func (s *Store) approvalPrefix() string         { return s.opts.KeyPrefix + "ap:" }
func (s *Store) digestKey(digest string) string { return s.opts.KeyPrefix + "apd:" + digest }
func (s *Store) dueKey() string                 { return s.opts.KeyPrefix + "apdue" }

// msUp is t in Unix milliseconds, rounded up; "" for the zero time.
func msUp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	ms := t.UnixMilli()
	if t.After(time.UnixMilli(ms)) {
		ms++
	}
	return itoa(ms)
}

func fromMs(v any) (time.Time, error) {
	str, ok := v.(string)
	if !ok || str == "" {
		return time.Time{}, nil
	}
	ms, err := strconv.ParseInt(str, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(ms).UTC(), nil
}

// approvalPX is the PX TTL of a record kept until keep: "" for the zero
// time (no TTL), else the backstop past keep, at least 1ms.
func (s *Store) approvalPX(keep time.Time) string {
	if keep.IsZero() {
		return ""
	}
	exp, _ := strconv.ParseInt(msUp(keep), 10, 64)
	return itoa(max(1, exp-s.now()+ms(s.opts.Backstop)))
}

func openFlag(open bool) string {
	if open {
		return "1"
	}
	return "0"
}

// InsertApproval implements store.ApprovalStore.
func (s *Store) InsertApproval(ctx context.Context, row store.ApprovalRow) error {
	if err := s.begin(ctx, nil); err != nil {
		return err
	}
	n, err := insertApprovalScript.Run(ctx, s.rdb,
		[]string{s.approvalKey(row.ID), s.digestKey(row.Digest), s.dueKey(), s.expKey},
		row.ID, row.Digest, openFlag(row.Open), msUp(row.Due), msUp(row.KeepUntil), nonNil(row.Data),
		itoa(s.now()), s.approvalPrefix(), s.approvalPX(row.KeepUntil)).Int64()
	switch {
	case err != nil:
		return wrap("insert approval", err)
	case n != 1:
		return store.ErrExists
	}
	return nil
}

// ReplaceApproval implements store.ApprovalStore.
func (s *Store) ReplaceApproval(ctx context.Context, row store.ApprovalRow) (int64, error) {
	if err := s.begin(ctx, nil); err != nil {
		return 0, err
	}
	v, err := replaceApprovalScript.Run(ctx, s.rdb,
		[]string{s.approvalKey(row.ID), s.dueKey(), s.expKey},
		row.ID, itoa(row.Version), openFlag(row.Open), msUp(row.Due), msUp(row.KeepUntil), nonNil(row.Data),
		itoa(s.now()), s.approvalPX(row.KeepUntil), s.opts.KeyPrefix).Int64()
	switch {
	case err != nil:
		return 0, wrap("replace approval", err)
	case v == -1:
		return 0, store.ErrNotFound
	case v < 0:
		return 0, store.ErrConflict
	}
	return v, nil
}

// LoadApproval implements store.ApprovalStore.
func (s *Store) LoadApproval(ctx context.Context, id string) (store.ApprovalRow, error) {
	if err := s.begin(ctx, nil); err != nil {
		return store.ApprovalRow{}, err
	}
	v, err := s.rdb.HMGet(ctx, s.approvalKey(id), "dg", "open", "due", "exp", "ver", "data").Result()
	if err != nil {
		return store.ApprovalRow{}, wrap("load approval", err)
	}
	return s.approvalRow(id, v)
}

// LatestApproval implements store.ApprovalStore.
func (s *Store) LatestApproval(ctx context.Context, digest string) (store.ApprovalRow, error) {
	if err := s.begin(ctx, nil); err != nil {
		return store.ApprovalRow{}, err
	}
	v, err := latestApprovalScript.Run(ctx, s.rdb, []string{s.digestKey(digest)}, s.approvalPrefix()).Slice()
	if err != nil {
		return store.ApprovalRow{}, wrap("latest approval", err)
	}
	if len(v) == 0 {
		return store.ApprovalRow{}, store.ErrNotFound
	}
	id, _ := v[0].(string)
	return s.approvalRow(id, v[1:])
}

// approvalRow decodes the fields dg, open, due, exp, ver, data of record
// id: ErrNotFound when it is missing or dead.
func (s *Store) approvalRow(id string, v []any) (store.ApprovalRow, error) {
	if len(v) != 6 {
		return store.ApprovalRow{}, fmt.Errorf("redisstore: approval %q: unexpected reply of %d fields", id, len(v))
	}
	str := func(i int) string { x, _ := v[i].(string); return x }
	if v[4] == nil {
		return store.ApprovalRow{}, store.ErrNotFound
	}
	keep, err := fromMs(v[3])
	if err != nil {
		return store.ApprovalRow{}, fmt.Errorf("redisstore: approval %q: exp: %w", id, err)
	}
	if !keep.IsZero() && keep.UnixMilli() <= s.now() {
		return store.ApprovalRow{}, store.ErrNotFound
	}
	due, err := fromMs(v[2])
	if err != nil {
		return store.ApprovalRow{}, fmt.Errorf("redisstore: approval %q: due: %w", id, err)
	}
	ver, err := strconv.ParseInt(str(4), 10, 64)
	if err != nil {
		return store.ApprovalRow{}, fmt.Errorf("redisstore: approval %q: ver: %w", id, err)
	}
	return store.ApprovalRow{
		ID:        id,
		Digest:    str(0),
		Open:      str(1) == "1",
		Due:       due,
		KeepUntil: keep,
		Version:   ver,
		Data:      append([]byte{}, str(5)...),
	}, nil
}

// DueApprovals implements store.ApprovalStore.
func (s *Store) DueApprovals(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if err := s.begin(ctx, nil); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return []string{}, nil
	}
	ids, err := dueApprovalsScript.Run(ctx, s.rdb, []string{s.dueKey()},
		itoa(now.UnixMilli()), limit, itoa(s.now()), s.approvalPrefix()).StringSlice()
	if err != nil {
		return nil, wrap("due approvals", err)
	}
	if ids == nil {
		ids = []string{}
	}
	return ids, nil
}
