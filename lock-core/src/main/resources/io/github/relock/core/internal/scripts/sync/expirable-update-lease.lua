-- Permit-expirable semaphore: give a held permit a new deadline (Redisson updateLeaseTime, sync
-- spec 3.11), after every ended lease came back to the pool. The lease restarts from `now`; it may
-- get shorter. The zset's TTL is not touched.
-- KEYS[1] permits key N
-- KEYS[2] leases {N}:timeout
-- KEYS[3] channel redisson_sc:{N}
-- ARGV[1] permit id, hex text
-- ARGV[2] new deadline: epoch ms (an integer), or 922337203685477 for never
-- ARGV[3] now, epoch ms
-- ARGV[4] publish mode: PUBLISH, SPUBLISH, or BOTH
-- Returns 1 when updated, 0 when the id is unknown or its lease had ended (it is reclaimed now).
--@include notify
--@include sync/permit-id
--@include sync/permit-reclaim
reclaim(KEYS[1], KEYS[2], KEYS[3], ARGV[3], -1, ARGV[4])
local id = permit_bytes(ARGV[1])
if redis.call('zscore', KEYS[2], id) then
    redis.call('zadd', KEYS[2], ARGV[2], id)
    return 1
end
return 0
