package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
)

var _ store.Batcher = (*Store)(nil)

// batchScript applies a batch: KEYS exp zset, then the keys of each op in
// order; ARGV now, prefix, then for each op its kind letter, "1" when it is
// IfAcquired ("0" otherwise) and its arguments:
//
//	c claim     key: op      args: fp, owner, lease until, exp, px
//	d complete  key: op      args: owner, exp, px, result
//	r release   key: op      args: owner
//	p put state keys: state, workflow set   args: ref, workflow, subject, principal, data, exp, px
//	g get state key: state
//	x delete workflow states key: workflow set   args: workflow
//
// It returns one reply per op: the reply of the op's function (lua.go), or
// {-1} when it was skipped. One script: no other command runs in between.
var batchScript = redis.NewScript(luaClaim + luaComplete + luaRelease + luaPutState + luaDeleteWorkflow + luaGetState + `
local now, prefix, z = tonumber(ARGV[1]), ARGV[2], KEYS[1]
local ki, ai = 2, 3
local open = true
local out = {}
while ai <= #ARGV do
	local kind, gated = ARGV[ai], ARGV[ai + 1] == '1'
	ai = ai + 2
	local skip = gated and not open
	local res = {-1}
	if kind == 'c' then
		if not skip then
			res = claim(KEYS[ki], z, ARGV[ai], ARGV[ai + 1], now, ARGV[ai + 2], ARGV[ai + 3], ARGV[ai + 4])
		end
		if res[1] ~= 1 then
			open = false
		end
		ki, ai = ki + 1, ai + 5
	elseif kind == 'd' then
		if not skip then
			res = {complete(KEYS[ki], z, ARGV[ai], now, ARGV[ai + 1], ARGV[ai + 2], ARGV[ai + 3])}
		end
		ki, ai = ki + 1, ai + 4
	elseif kind == 'r' then
		if not skip then
			res = {release(KEYS[ki], z, ARGV[ai])}
		end
		ki, ai = ki + 1, ai + 1
	elseif kind == 'p' then
		if not skip then
			res = {putState(KEYS[ki], z, KEYS[ki + 1], ARGV[ai], ARGV[ai + 1], ARGV[ai + 2], ARGV[ai + 3], ARGV[ai + 4], ARGV[ai + 5], ARGV[ai + 6], prefix)}
		end
		ki, ai = ki + 2, ai + 7
	elseif kind == 'g' then
		if not skip then
			res = getState(KEYS[ki], now)
		end
		ki = ki + 1
	elseif kind == 'x' then
		if not skip then
			res = {deleteWorkflow(KEYS[ki], z, prefix, ARGV[ai])}
		end
		ki, ai = ki + 1, ai + 1
	else
		return redis.error_reply('unknown batch op ' .. tostring(kind))
	end
	out[#out + 1] = res
end
return out
`)

// Apply implements store.Batcher: the whole batch is one script, one round
// trip.
func (s *Store) Apply(ctx context.Context, ops []store.Op) ([]store.OpResult, error) {
	if err := s.begin(ctx, store.ValidateOps(ops)); err != nil {
		return nil, err
	}
	now := s.now()
	keys := []string{s.expKey}
	args := []any{itoa(now), s.opts.KeyPrefix}
	results := make([]store.OpResult, len(ops))
	var run []int // indexes of the ops sent to the script
	for i, op := range ops {
		flag := "0"
		if op.IfAcquired {
			flag = "1"
		}
		switch op.Kind {
		case store.OpClaim:
			lease := now + ms(op.Claim.Lease)
			exp := lease + ms(s.opts.AbandonAfter)
			keys = append(keys, s.opKey(op.Claim.Key))
			args = append(args, "c", flag, op.Claim.Fingerprint, op.Claim.Owner, itoa(lease), itoa(exp), s.px(exp, now))
		case store.OpComplete:
			exp := now + ms(op.Retain)
			keys = append(keys, s.opKey(op.Key))
			args = append(args, "d", flag, op.Owner, itoa(exp), s.px(exp, now), nonNil(op.Result))
		case store.OpRelease:
			keys = append(keys, s.opKey(op.Key))
			args = append(args, "r", flag, op.Owner)
		case store.OpPutState:
			rec, exp := op.State, now+ms(op.TTL)
			keys = append(keys, s.stateKey(rec.Ref), s.workflowKey(rec.Workflow))
			args = append(args, "p", flag, rec.Ref, rec.Workflow, rec.Subject, rec.Principal, nonNil(rec.Data), itoa(exp), s.px(exp, now))
		case store.OpGetState:
			if !store.ValidRef(op.Ref) {
				// Like GetState: no record could have this ref. It is not
				// sent; as a read, leaving it out changes nothing else.
				results[i].Err = store.ErrNotFound
				continue
			}
			keys = append(keys, s.stateKey(op.Ref))
			args = append(args, "g", flag)
		case store.OpDeleteWorkflowStates:
			keys = append(keys, s.workflowKey(op.Workflow))
			args = append(args, "x", flag, op.Workflow)
		}
		run = append(run, i)
	}
	v, err := batchScript.Run(ctx, s.rdb, keys, args...).Slice()
	if err != nil {
		return nil, wrap("batch", err)
	}
	if len(v) != len(run) {
		return nil, fmt.Errorf("redisstore: batch: %d replies for %d ops", len(v), len(run))
	}
	for j, i := range run {
		if err := s.batchResult(ops[i], v[j], &results[i]); err != nil {
			return nil, err
		}
	}
	return results, nil
}

// batchResult decodes the script's reply to one op.
func (s *Store) batchResult(op store.Op, reply any, res *store.OpResult) error {
	r, ok := reply.([]any)
	if !ok || len(r) == 0 {
		return fmt.Errorf("redisstore: batch: unexpected reply %v to %v", reply, op.Kind)
	}
	if r[0] == int64(-1) {
		res.Skipped = true
		return nil
	}
	switch op.Kind {
	case store.OpClaim:
		c, err := claimResult(r)
		if err != nil {
			return err
		}
		res.Claim = c
	case store.OpComplete:
		if r[0] != int64(1) {
			res.Err = store.ErrLeaseLost
		}
	case store.OpGetState:
		if r[0] != int64(1) || len(r) != 5 {
			res.Err = store.ErrNotFound
			return nil
		}
		str := func(i int) string { x, _ := r[i].(string); return x }
		res.State = store.StateRecord{Ref: op.Ref, Workflow: str(1), Subject: str(2), Principal: str(3), Data: append([]byte{}, str(4)...)}
	}
	return nil
}

// claimResult decodes the reply of the claim function.
func claimResult(v []any) (store.ClaimResult, error) {
	if len(v) == 0 {
		return store.ClaimResult{}, fmt.Errorf("redisstore: claim: empty script reply")
	}
	switch v[0] {
	case int64(1):
		return store.ClaimResult{Status: store.Acquired, Takeover: len(v) > 1 && v[1] == int64(1)}, nil
	case int64(2):
		var res string
		if len(v) > 1 {
			res, _ = v[1].(string)
		}
		return store.ClaimResult{Status: store.Replayed, Result: append([]byte{}, res...)}, nil
	case int64(3):
		var str string
		if len(v) > 1 {
			str, _ = v[1].(string)
		}
		until, err := strconv.ParseInt(str, 10, 64)
		if err != nil {
			return store.ClaimResult{}, fmt.Errorf("redisstore: claim: bad lease %q", str)
		}
		return store.ClaimResult{Status: store.InFlight, LeaseExpires: time.UnixMilli(until).UTC()}, nil
	case int64(4):
		return store.ClaimResult{Status: store.Mismatch}, nil
	}
	return store.ClaimResult{}, fmt.Errorf("redisstore: claim: unexpected script reply %v", v)
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
