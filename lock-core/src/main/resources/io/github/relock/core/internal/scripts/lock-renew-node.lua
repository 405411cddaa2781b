#!lua flags=allow-cross-slot-keys
-- Watchdog on a cluster (Redis 7+): renew the held locks of several slots that one node serves,
-- in one call, as lock-renew does for one slot. Redis refuses declared keys of several slots
-- (CROSSSLOT), so only the first lock is declared, to route the call to its node; the others come
-- in ARGV and the flag lets the script reach them. A lock that another node serves meanwhile (a
-- topology change) fails the whole call; the watchdog then renews that batch slot by slot.
-- KEYS[1] lock hash of the first hold (routes the call)
-- ARGV[1] new TTL in ms (the watchdog timeout)
-- ARGV[3i - 1], ARGV[3i], ARGV[3i + 1]: the i-th hold's lock hash, owner field, and '' or its read
--   timeout-key prefix (as in lock-renew)
-- Returns an array: 1 where renewed, 0 where the owner no longer holds the lock.
--@include grouped-extend
--@include renew-hold
local result = {}
for i = 1, (#ARGV - 1) / 3 do
    result[i] = renew_hold(ARGV[3 * i - 1], ARGV[3 * i], ARGV[3 * i + 1], ARGV[1])
end
return result
