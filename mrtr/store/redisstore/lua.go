package redisstore

// The Lua functions of the record operations. Times are numbers (Unix
// milliseconds of the store's clock); expiries and PX TTLs are passed as
// the decimal strings the caller computed. Each returns what its script
// returns (see the scripts in redisstore.go).

// luaClaim: the atomic insert-if-absent of a pending claim, with the
// fingerprint check and the takeover of a lapsed lease.
const luaClaim = `
local function claim(k, z, fp, own, now, lease, exp, px)
	local r = redis.call('HMGET', k, 'fp', 'own', 'st', 'lease', 'exp')
	local takeover = 0
	if r[5] and tonumber(r[5]) > now then
		if r[1] ~= fp then
			return {4}
		end
		if r[3] == 'd' then
			return {2, redis.call('HGET', k, 'res')}
		end
		if tonumber(r[4]) > now and r[2] ~= own then
			return {3, r[4]}
		end
		if r[2] ~= own then
			takeover = 1
		end
	end
	redis.call('DEL', k)
	redis.call('HSET', k, 'fp', fp, 'own', own, 'st', 'p', 'lease', lease, 'exp', exp)
	redis.call('PEXPIRE', k, px)
	redis.call('ZADD', z, exp, k)
	return {1, takeover}
end
`

const luaComplete = `
local function complete(k, z, own, now, exp, px, res)
	local r = redis.call('HMGET', k, 'own', 'st', 'exp')
	if not r[3] or tonumber(r[3]) <= now or r[1] ~= own then
		return 0
	end
	if r[2] == 'd' then
		return 1
	end
	redis.call('HSET', k, 'st', 'd', 'res', res, 'exp', exp)
	redis.call('HDEL', k, 'lease')
	redis.call('PEXPIRE', k, px)
	redis.call('ZADD', z, exp, k)
	return 1
end
`

const luaRelease = `
local function release(k, z, own)
	local r = redis.call('HMGET', k, 'own', 'st')
	if r[1] == own and r[2] == 'p' then
		redis.call('DEL', k)
		redis.call('ZREM', z, k)
		return 1
	end
	return 0
end
`

const luaPutState = `
local function putState(k, z, wk, ref, wf, sub, pr, data, exp, px, prefix)
	local old = redis.call('HGET', k, 'wf')
	if old and old ~= wf then
		redis.call('SREM', prefix .. 'wf:' .. old, ref)
	end
	redis.call('HSET', k, 'wf', wf, 'sub', sub, 'pr', pr, 'data', data, 'exp', exp)
	redis.call('PEXPIRE', k, px)
	redis.call('ZADD', z, exp, k)
	redis.call('SADD', wk, ref)
	if redis.call('PTTL', wk) < tonumber(px) then
		redis.call('PEXPIRE', wk, px)
	end
	return 1
end
`

const luaDeleteWorkflow = `
local function deleteWorkflow(wk, z, prefix, wf)
	local refs = redis.call('SMEMBERS', wk)
	local n = 0
	for _, ref in ipairs(refs) do
		local k = prefix .. 'st:' .. ref
		if redis.call('HGET', k, 'wf') == wf then
			redis.call('DEL', k)
			redis.call('ZREM', z, k)
			n = n + 1
		end
	end
	redis.call('DEL', wk)
	return n
end
`

// luaGetState returns {1, workflow, subject, principal, data} for a live
// record, {0} otherwise (GetState itself is one HMGET, checked in Go).
const luaGetState = `
local function getState(k, now)
	local r = redis.call('HMGET', k, 'wf', 'sub', 'pr', 'data', 'exp')
	if not r[5] or tonumber(r[5]) <= now then
		return {0}
	end
	return {1, r[1], r[2], r[3], r[4]}
end
`
