-- Watchdog: renew a batch of held locks in one call (spec 4.2). A lock is renewed only while the
-- given owner still holds it, so a renewal can never resurrect or extend someone else's lock.
-- KEYS[i] lock hash of the i-th hold (all in one cluster slot)
-- ARGV[1] new TTL in ms (the watchdog timeout)
-- ARGV[2i] owner field of the i-th hold
-- ARGV[2i + 1] '' for an exclusive hold, or its read timeout-key prefix ({N})
-- Returns an array: 1 where renewed, 0 where the owner no longer holds the lock.
--@include grouped-extend
--@include renew-hold
local result = {}
for i = 1, #KEYS do
    result[i] = renew_hold(KEYS[i], ARGV[2 * i], ARGV[2 * i + 1], ARGV[1])
end
return result
