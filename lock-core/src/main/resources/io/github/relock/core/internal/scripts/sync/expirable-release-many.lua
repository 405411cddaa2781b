-- Permit-expirable semaphore: give several permits back, all or none (Redisson release(List) /
-- tryRelease(List) of 3.41+, sync spec 3.6). If any id is unknown or its lease has ended, nothing
-- changes. Otherwise every ended lease is reclaimed first, then the ids are released and their
-- number (not the new total) is published.
-- KEYS[1] permits key N
-- KEYS[2] leases {N}:timeout
-- KEYS[3] channel redisson_sc:{N}
-- ARGV[1] now, epoch ms
-- ARGV[2] publish mode: PUBLISH, SPUBLISH, or BOTH
-- ARGV[3], ARGV[4], ... permit ids, hex text (at least one)
-- Returns how many permits were released; 0 when the list was refused.
--@include notify
--@include sync/permit-id
--@include sync/permit-reclaim
local now = tonumber(ARGV[1])
local ids = {}
for i = 3, #ARGV do
    local id = permit_bytes(ARGV[i])
    local deadline = redis.call('zscore', KEYS[2], id)
    if not deadline or tonumber(deadline) <= now then
        return 0
    end
    ids[#ids + 1] = id
end
reclaim(KEYS[1], KEYS[2], KEYS[3], ARGV[1], -1, ARGV[2])
local released = redis.call('zrem', KEYS[2], unpack(ids))
redis.call('incrby', KEYS[1], released)
notify(KEYS[3], released, ARGV[2])
return released
