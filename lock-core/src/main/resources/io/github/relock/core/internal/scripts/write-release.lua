-- Write lock: release one acquisition (spec 2.4 unlock). When the writer's last hold goes, the
-- hash goes and "1" (READ_UNLOCK) wakes every waiter, unless the same owner still holds reads
-- (a downgrade): then the mode becomes 'read' and nothing is published.
-- KEYS[1] lock hash N
-- KEYS[2] channel redisson_rwlock:{N}
-- ARGV[1] lease in ms to set when holds remain
-- ARGV[2] writer field
-- ARGV[3] publish mode: PUBLISH, SPUBLISH, or BOTH
-- Returns {code, n}: {1, heard} released (heard: subscribers that received the "1", 0 after a
-- downgrade, which publishes nothing), {0, 0} still held, {-1, 0} not held and the lock is free,
-- {-2, 0} held by others.
--@include notify
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    notify(KEYS[2], '1', ARGV[3])
    return {-1, 0}
end
if mode ~= 'write' or redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
    return {-2, 0}
end
local count = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if count > 0 then
    redis.call('pexpire', KEYS[1], ARGV[1])
    return {0, 0}
end
redis.call('hdel', KEYS[1], ARGV[2])
if redis.call('hlen', KEYS[1]) == 1 then
    redis.call('del', KEYS[1])
    return {1, notify(KEYS[2], '1', ARGV[3])}
end
redis.call('hset', KEYS[1], 'mode', 'read')
return {1, 0}
