-- Read-only snapshot of everything stored under one name, for LockClient.inspect (spec 1.4, sync
-- spec 1.1). Written for relock from the specs; it changes nothing.
-- KEYS[1] N (lock hash, or a semaphore's / latch's string count)
-- KEYS[2] fair queue redisson_lock_queue:{N}   KEYS[3] fair deadlines redisson_lock_timeout:{N}
-- KEYS[4] fencing token redisson_lock_token:{N} KEYS[5] held permits {N}:timeout
-- ARGV[1] prefix of read-hold timeout keys, suffixName(N, ''); ARGV[2] most entries listed per part
-- The read-hold timeout keys share N's slot but cannot be in KEYS: which exist depends on the
-- hash, as in Redisson's own read-unlock script.
-- Returns {TYPE N, HGETALL N or {}, GET N or false, PTTL N, LRANGE queue, ZRANGE deadlines
--          WITHSCORES, {field, k, PTTL, ...} per read hold, token or false, ZCARD permits,
--          {permit id as hex, score, ...}}.
local max = tonumber(ARGV[2])
local t = redis.call('type', KEYS[1]).ok
local fields = {}
local value = false
if t == 'hash' then
    fields = redis.call('hgetall', KEYS[1])
elseif t == 'string' then
    value = redis.call('get', KEYS[1])
end
local q = {}
if redis.call('type', KEYS[2]).ok == 'list' then q = redis.call('lrange', KEYS[2], 0, -1) end
local z = {}
if redis.call('type', KEYS[3]).ok == 'zset' then z = redis.call('zrange', KEYS[3], 0, -1, 'WITHSCORES') end
local rt = {}
if t == 'hash' and redis.call('hexists', KEYS[1], 'mode') == 1 then
    for i = 1, #fields, 2 do
        local f, n = fields[i], tonumber(fields[i + 1])
        if f ~= 'mode' and n and string.sub(f, -6) ~= ':write' then
            for k = 1, math.min(n, max) do
                rt[#rt + 1] = f
                rt[#rt + 1] = k
                rt[#rt + 1] = redis.call('pttl', ARGV[1] .. f .. ':rwlock_timeout:' .. k)
            end
        end
    end
end
local token = false
if redis.call('type', KEYS[4]).ok == 'string' then token = redis.call('get', KEYS[4]) end
local held = 0
local permits = {}
if redis.call('type', KEYS[5]).ok == 'zset' then
    held = redis.call('zcard', KEYS[5])
    local p = redis.call('zrange', KEYS[5], 0, max - 1, 'WITHSCORES')
    for i = 1, #p, 2 do
        permits[#permits + 1] = (p[i]:gsub('.', function(c) return string.format('%02x', c:byte()) end))
        permits[#permits + 1] = p[i + 1]
    end
end
return {t, fields, value, redis.call('pttl', KEYS[1]), q, z, rt, token, held, permits}
