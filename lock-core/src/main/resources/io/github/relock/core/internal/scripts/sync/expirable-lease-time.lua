-- Permit-expirable semaphore: how long a permit's lease still runs (Redisson getLeaseTime, 3.41+,
-- sync spec 3.7), after every ended lease came back to the pool.
-- KEYS[1] permits key N
-- KEYS[2] leases {N}:timeout
-- KEYS[3] channel redisson_sc:{N}
-- ARGV[1] permit id, hex text
-- ARGV[2] now, epoch ms
-- ARGV[3] publish mode: PUBLISH, SPUBLISH, or BOTH
-- Returns the ms left (> 0); -1 when the lease never ends; -2 when the id is unknown or its lease
-- has ended (Redisson throws IllegalArgumentException then).
--@include notify
--@include sync/permit-id
--@include sync/permit-reclaim
local NEVER = 922337203685477
reclaim(KEYS[1], KEYS[2], KEYS[3], ARGV[2], -1, ARGV[3])
local deadline = redis.call('zscore', KEYS[2], permit_bytes(ARGV[1]))
if not deadline then
    return -2
end
if tonumber(deadline) == NEVER then
    return -1
end
return tonumber(deadline) - tonumber(ARGV[2])
