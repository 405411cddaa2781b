-- Fair lock: release one hold (spec 2.2 unlock). When the last hold goes, the head waiter is
-- woken on its own channel, "<base channel>:<its owner field>".
-- KEYS[1] lock hash N
-- KEYS[2] queue redisson_lock_queue:{N}
-- KEYS[3] deadlines redisson_lock_timeout:{N}
-- KEYS[4] base channel redisson_lock__channel:{N}
-- ARGV[1] lease in ms to set when holds remain
-- ARGV[2] owner field
-- ARGV[3] now, epoch ms
-- ARGV[4] publish mode: PUBLISH, SPUBLISH, or BOTH
-- ARGV[5] optional, local hand-off: fairLockWaitTimeout in ms (what each queued deadline moves up)
-- ARGV[6], ARGV[7] with ARGV[5]: the candidate, a waiting owner's field (of the releasing client),
--   and the lease in ms its hold would get
-- Returns {code, n}: {1, heard} released (heard: subscribers that received the head's "0"),
-- {0, 0} still held, {-1, heard} not held and the lock is free (the head is woken all the same, as
-- Redisson's fair unlock does), {-2, 0} held by another owner, {2, 0} released and handed to the
-- candidate, which headed the queue: it leaves the queue as if it had acquired (everyone behind
-- moves up one slot), and nothing is published.
--@include notify
--@include prune
local now = tonumber(ARGV[3])
prune(KEYS[2], KEYS[3], now)
if redis.call('exists', KEYS[1]) == 0 then
    local head = redis.call('lindex', KEYS[2], 0)
    local heard = 0
    if head then
        heard = notify(KEYS[4] .. ':' .. head, '0', ARGV[4])
    end
    return {-1, heard}
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
    return {-2, 0}
end
local remaining = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if remaining > 0 then
    redis.call('pexpire', KEYS[1], ARGV[1])
    return {0, 0}
end
redis.call('del', KEYS[1])
local head = redis.call('lindex', KEYS[2], 0)
if head and ARGV[5] and ARGV[6] == head then
    redis.call('lpop', KEYS[2])
    redis.call('zrem', KEYS[3], head)
    local wait = tonumber(ARGV[5])
    local waiting = redis.call('zrange', KEYS[3], 0, -1)
    for i = 1, #waiting do
        redis.call('zincrby', KEYS[3], -wait, waiting[i])
    end
    redis.call('hset', KEYS[1], head, 1)
    redis.call('pexpire', KEYS[1], ARGV[7])
    return {2, 0}
end
local heard = 0
if head then
    heard = notify(KEYS[4] .. ':' .. head, '0', ARGV[4])
end
return {1, heard}
