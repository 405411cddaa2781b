-- Permit-expirable semaphore: counts, after every ended lease came back to the pool (Redisson
-- availablePermits, getPermits and acquiredPermits, sync spec 3.7; each reclaims the same way).
-- KEYS[1] permits key N
-- KEYS[2] leases {N}:timeout
-- KEYS[3] channel redisson_sc:{N}
-- ARGV[1] now, epoch ms
-- ARGV[2] publish mode: PUBLISH, SPUBLISH, or BOTH
-- Returns {1 when N exists else 0, available permits (0 when N is missing), held permits}.
-- Redisson's getPermits is available + held when N exists, else 0.
--@include notify
--@include sync/permit-reclaim
reclaim(KEYS[1], KEYS[2], KEYS[3], ARGV[1], -1, ARGV[2])
local available = redis.call('get', KEYS[1])
local held = redis.call('zcount', KEYS[2], 0, '+inf')
if available then
    return {1, tonumber(available), held}
end
return {0, 0, held}
