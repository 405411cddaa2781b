-- Watchdog: renew a batch of held locks in one call (spec 4.2). A lock is renewed only while the
-- given owner still holds it, so a renewal can never resurrect or extend someone else's lock.
-- KEYS[i] lock hash of the i-th hold (all in one cluster slot)
-- ARGV[1] new TTL in ms (the watchdog timeout)
-- ARGV[i + 1] owner field of the i-th hold
-- Returns an array: 1 where renewed, 0 where the owner no longer holds the lock.
local result = {}
for i = 1, #KEYS do
    if redis.call('hexists', KEYS[i], ARGV[i + 1]) == 1 then
        redis.call('pexpire', KEYS[i], ARGV[1])
        result[i] = 1
    else
        result[i] = 0
    end
end
return result
