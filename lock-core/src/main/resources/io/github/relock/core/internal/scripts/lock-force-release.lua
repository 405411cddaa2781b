-- Reentrant lock: delete whoever holds it and wake one waiter (spec 2.1 forceUnlock).
-- KEYS[1] lock hash N
-- KEYS[2] channel redisson_lock__channel:{N}
-- KEYS[3], KEYS[4] the waiting relock clients and the wake channel (directed wake-ups, fragments/wake.lua)
-- ARGV[1] publish mode: PUBLISH, SPUBLISH, or BOTH
-- Returns 1 if a lock was deleted, else 0.
--@include notify
--@include wake
if redis.call('del', KEYS[1]) == 1 then
    wake(KEYS[2], ARGV[1], KEYS[3], KEYS[4], '', '0')
    return 1
end
return 0
