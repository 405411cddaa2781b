-- Permit-expirable semaphore: give one permit back by its id (Redisson release(String) /
-- tryRelease(String), sync spec 3.5). A permit whose lease had ended but that nobody reclaimed yet
-- still goes back to the pool; Redisson then answers false. Other ended leases are left alone.
-- KEYS[1] permits key N
-- KEYS[2] leases {N}:timeout
-- KEYS[3] channel redisson_sc:{N}
-- ARGV[1] permit id, hex text
-- ARGV[2] now, epoch ms
-- ARGV[3] publish mode: PUBLISH, SPUBLISH, or BOTH
-- Returns 1 released; 0 released although its lease had ended (Redisson's false); -1 unknown or
-- already reclaimed (nothing changed).
--@include notify
--@include sync/permit-id
local id = permit_bytes(ARGV[1])
local deadline = redis.call('zscore', KEYS[2], id)
if redis.call('zrem', KEYS[2], id) ~= 1 then
    return -1
end
local available = redis.call('incrby', KEYS[1], 1)
notify(KEYS[3], available, ARGV[3])
if tonumber(deadline) <= tonumber(ARGV[2]) then
    return 0
end
return 1
