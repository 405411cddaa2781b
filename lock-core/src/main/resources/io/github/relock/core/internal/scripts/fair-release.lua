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
-- Returns 1 released, 0 still held, -1 not held and the lock is free, -2 held by another owner.
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
if head then
    notify(KEYS[4] .. ':' .. head, '0', ARGV[4])
end
return 1
