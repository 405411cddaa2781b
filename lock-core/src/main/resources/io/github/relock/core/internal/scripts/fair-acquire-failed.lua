-- Fair lock: a waiter gives up (spec 2.2 acquireFailed). Everyone queued behind it moves up one
-- slot; it leaves both the list and the zset. Unlike Redisson, if the lock is free the new head
-- is woken, so a give-up never leaves the queue waiting for a poll.
-- KEYS[1] queue redisson_lock_queue:{N}
-- KEYS[2] deadlines redisson_lock_timeout:{N}
-- KEYS[3] lock hash N
-- KEYS[4] base channel redisson_lock__channel:{N}
-- ARGV[1] owner field of the waiter giving up
-- ARGV[2] wait (fairLockWaitTimeout), ms
-- ARGV[3] publish mode: PUBLISH, SPUBLISH, or BOTH
--@include notify
local queue = redis.call('lrange', KEYS[1], 0, -1)
local position = #queue + 1
for i = 1, #queue do
    if queue[i] == ARGV[1] then
        position = i
        break
    end
end
for i = position + 1, #queue do
    redis.call('zincrby', KEYS[2], -tonumber(ARGV[2]), queue[i])
end
redis.call('zrem', KEYS[2], ARGV[1])
redis.call('lrem', KEYS[1], 0, ARGV[1])
if position == 1 and redis.call('exists', KEYS[3]) == 0 then
    local head = redis.call('lindex', KEYS[1], 0)
    if head then
        notify(KEYS[4] .. ':' .. head, '0', ARGV[3])
    end
end
return nil
