-- Grouped multi-lock (spec 2.8): release one hold of every value of the set. Unlike Redisson's
-- script, it checks every value before changing any (a caller that does not hold them all changes
-- nothing) and says why it failed. Publishes "0" (wakes one waiter) when a value is freed.
-- KEYS[1] group hash N
-- KEYS[2] channel redisson_lock__channel:{N}
-- ARGV[1] lease in ms for the values still held (re-entered)
-- ARGV[2] owner field
-- ARGV[3] publish mode (as lock-release)
-- ARGV[4] now, the caller's wall clock in ms
-- ARGV[5..] the values' field names F(v)
-- Returns {1, heard} released (a value was freed: the set's own count reached 0; heard as in
-- lock-release), {0, 0} still held (re-entered), {-1, 0} not held and no value is held by anyone,
-- {-2, 0} not held and another owner holds a value.
--@include notify
local now = tonumber(ARGV[4])
local owner = ARGV[2]
for i = 5, #ARGV do
    local expiry = tonumber(redis.call('hget', KEYS[1], ARGV[i] .. ':' .. owner .. ':expire_time') or '-1') or -1
    if redis.call('hget', KEYS[1], ARGV[i]) ~= owner or expiry < now then
        for j = 5, #ARGV do
            local holder = redis.call('hget', KEYS[1], ARGV[j])
            if holder and holder ~= owner then
                local other = tonumber(redis.call('hget', KEYS[1], ARGV[j] .. ':' .. holder .. ':expire_time') or '-1') or -1
                if other >= now then
                    return {-2, 0}
                end
            end
        end
        return {-1, 0}
    end
end
local freed = false
local until_ms = now + tonumber(ARGV[1])
for i = 5, #ARGV do
    local f = ARGV[i]
    if redis.call('hincrby', KEYS[1], f .. ':' .. owner .. ':lock_count', -1) <= 0 then
        redis.call('hdel', KEYS[1], f, f .. ':' .. owner .. ':expire_time', f .. ':' .. owner .. ':lock_count')
        freed = true
    elseif tonumber(redis.call('hget', KEYS[1], f .. ':' .. owner .. ':expire_time')) < until_ms then
        redis.call('hset', KEYS[1], f .. ':' .. owner .. ':expire_time', until_ms)
    end
end
if not freed then
    local pttl = redis.call('pttl', KEYS[1])
    if pttl >= 0 and pttl < tonumber(ARGV[1]) then
        redis.call('pexpire', KEYS[1], ARGV[1])
    end
    return {0, 0}
end
return {1, notify(KEYS[2], '0', ARGV[3])}
