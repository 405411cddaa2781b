-- Read lock: release one acquisition (spec 2.3 unlock). Its timeout key goes; while other holders
-- remain, the hash keeps the longest TTL among every reader's live timeout keys; when none is
-- alive (and no writer holds it) the hash goes and "0" (UNLOCK) wakes one waiter.
-- KEYS[1] lock hash N
-- KEYS[2] channel redisson_rwlock:{N}
-- KEYS[3] this owner's timeout prefix {N}:<field>:rwlock_timeout
-- KEYS[4] key prefix {N} (N when N contains '{')
-- ARGV[1] unused (the read half keeps the readers' own TTLs)
-- ARGV[2] reader field
-- ARGV[3] publish mode: PUBLISH, SPUBLISH, or BOTH
-- Returns {code, n}: {1, heard} when this owner holds no more reads (heard: subscribers that
-- received a "0", 0 when the hash stayed for other holders), {0, 0} while it still holds some,
-- {-1, 0} not held and the lock is free, {-2, 0} not held and others hold it.
--@include notify
--@include longest-reader
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    notify(KEYS[2], '0', ARGV[3])
    return {-1, 0}
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
    return {-2, 0}
end
local count = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if count == 0 then
    redis.call('hdel', KEYS[1], ARGV[2])
end
redis.call('del', KEYS[3] .. ':' .. (count + 1))
local mine = count == 0 and 1 or 0
if redis.call('hlen', KEYS[1]) > 1 then
    local longest = longest_reader_ttl(KEYS[1], KEYS[4])
    if longest > 0 then
        redis.call('pexpire', KEYS[1], longest)
        return {mine, 0}
    end
    if mode == 'write' then
        return {mine, 0}
    end
end
redis.call('del', KEYS[1])
return {1, notify(KEYS[2], '0', ARGV[3])}
