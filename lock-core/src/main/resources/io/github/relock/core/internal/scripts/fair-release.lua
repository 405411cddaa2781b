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
-- ARGV[6], ARGV[7], ... with ARGV[5]: candidates, pairs of a waiting owner's field (of the
--   releasing client) and the lease in ms its hold would get
-- Returns 1 released, 0 still held, -1 not held and the lock is free, -2 held by another owner,
-- 2 + k: released and handed to candidate k (0-based), which headed the queue: it leaves the queue
-- as if it had acquired (everyone behind moves up one slot), and nothing is published.
--@include notify
--@include prune
local now = tonumber(ARGV[3])
prune(KEYS[2], KEYS[3], now)
if redis.call('exists', KEYS[1]) == 0 then
    local head = redis.call('lindex', KEYS[2], 0)
    if head then
        notify(KEYS[4] .. ':' .. head, '0', ARGV[4])
    end
    return -1
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
    return -2
end
local remaining = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if remaining > 0 then
    redis.call('pexpire', KEYS[1], ARGV[1])
    return 0
end
redis.call('del', KEYS[1])
local head = redis.call('lindex', KEYS[2], 0)
if head and ARGV[5] then
    for c = 6, #ARGV - 1, 2 do
        if ARGV[c] == head then
            redis.call('lpop', KEYS[2])
            redis.call('zrem', KEYS[3], head)
            local wait = tonumber(ARGV[5])
            local waiting = redis.call('zrange', KEYS[3], 0, -1)
            for i = 1, #waiting do
                redis.call('zincrby', KEYS[3], -wait, waiting[i])
            end
            redis.call('hset', KEYS[1], head, 1)
            redis.call('pexpire', KEYS[1], ARGV[c + 1])
            return 2 + (c - 6) / 2
        end
    end
end
if head then
    notify(KEYS[4] .. ':' .. head, '0', ARGV[4])
end
return 1
