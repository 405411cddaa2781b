-- Reentrant lock: delete whoever holds it and wake one waiter (spec 2.1 forceUnlock).
-- KEYS[1] lock hash N
-- KEYS[2] channel redisson_lock__channel:{N}
-- ARGV[1] publish mode: PUBLISH, SPUBLISH, or BOTH
-- Returns 1 if a lock was deleted, else 0.
--@include notify
if redis.call('del', KEYS[1]) == 1 then
    notify(KEYS[2], '0', ARGV[1])
    return 1
end
return 0
