-- Grouped multi-lock (Redisson 4.x getMultiLock(group, values), spec 2.8): take every value of the
-- set at once, or none. One hash per group; per value v, with F = F(v) and L = the owner:
--   F                      the owner that last took v
--   F:L:expire_time        L's expiry of v, in ms of the CLIENTS' clock (Redisson writes it so)
--   F:L:lock_count         L's hold count of v
-- The key's own TTL is only a garbage bound: raised to the lease, never shortened.
-- KEYS[1] group hash N
-- ARGV[1] lease in ms
-- ARGV[2] now, the caller's wall clock in ms
-- ARGV[3] owner field "<clientId>:<threadId>"
-- ARGV[4] 'resolve' when an earlier grant of this waiting owner may have landed with its reply
--   lost: a set the owner already holds (every value, live) is that grant, kept (its expiry set)
--   instead of counted again; or ''
-- ARGV[5..] the values' field names F(v)
-- Returns nil when acquired (or re-entered); otherwise the ms until the latest expiry among the
-- values another owner holds (at least 1).
local lease = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local owner = ARGV[3]
local until_ms = now + lease
local function own_expiry(f)
    return tonumber(redis.call('hget', KEYS[1], f .. ':' .. owner .. ':expire_time') or '-1') or -1
end
if ARGV[4] == 'resolve' then
    local all = true
    for i = 5, #ARGV do
        if redis.call('hget', KEYS[1], ARGV[i]) ~= owner or own_expiry(ARGV[i]) < now then
            all = false
            break
        end
    end
    if all then
        for i = 5, #ARGV do
            if own_expiry(ARGV[i]) < until_ms then
                redis.call('hset', KEYS[1], ARGV[i] .. ':' .. owner .. ':expire_time', until_ms)
            end
        end
        local pttl = redis.call('pttl', KEYS[1])
        if pttl >= 0 and pttl < lease then
            redis.call('pexpire', KEYS[1], lease)
        end
        return nil
    end
end
local existed = redis.call('exists', KEYS[1]) == 1
if existed then
    local latest = -1
    for i = 5, #ARGV do
        local holder = redis.call('hget', KEYS[1], ARGV[i])
        if holder and holder ~= owner then
            local expiry = tonumber(redis.call('hget', KEYS[1], ARGV[i] .. ':' .. holder .. ':expire_time') or '-1') or -1
            if expiry > now and expiry > latest then
                latest = expiry
            end
        end
    end
    if latest >= 0 then
        return math.max(1, latest - now)
    end
end
for i = 5, #ARGV do
    local f = ARGV[i]
    local expiry = own_expiry(f)
    redis.call('hset', KEYS[1], f, owner)
    if expiry < now then
        -- no live hold of this owner: a count left by its expired hold is not carried over
        redis.call('hset', KEYS[1], f .. ':' .. owner .. ':lock_count', 1)
    else
        redis.call('hincrby', KEYS[1], f .. ':' .. owner .. ':lock_count', 1)
    end
    if expiry < until_ms then
        redis.call('hset', KEYS[1], f .. ':' .. owner .. ':expire_time', until_ms)
    end
end
local pttl = redis.call('pttl', KEYS[1])
if not existed or (pttl >= 0 and pttl < lease) then
    redis.call('pexpire', KEYS[1], lease)
end
return nil
