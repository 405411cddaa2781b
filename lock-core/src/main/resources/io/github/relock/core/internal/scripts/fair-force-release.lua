-- Fair lock: delete whoever holds it and wake the head waiter (spec 2.2 forceUnlock).
-- KEYS[1] lock hash N
-- KEYS[2] queue redisson_lock_queue:{N}
-- KEYS[3] deadlines redisson_lock_timeout:{N}
-- KEYS[4] base channel redisson_lock__channel:{N}
-- ARGV[1] now, epoch ms
-- ARGV[2] publish mode: PUBLISH, SPUBLISH, or BOTH
-- Returns 1 if a lock was deleted, else 0.
--@include notify
--@include prune
local now = tonumber(ARGV[1])
prune(KEYS[2], KEYS[3], now)
if redis.call('del', KEYS[1]) == 1 then
    local head = redis.call('lindex', KEYS[2], 0)
    if head then
        notify(KEYS[4] .. ':' .. head, '0', ARGV[2])
    end
    return 1
end
return 0
