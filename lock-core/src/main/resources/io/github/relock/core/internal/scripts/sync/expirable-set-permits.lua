-- Permit-expirable semaphore: set the total number of permits, held ones included (Redisson
-- setPermits, 3.19.1+, sync spec 3.9). Ended but unreclaimed leases count as held. The available
-- count moves by the difference (it may become negative) and keeps its TTL; the new total is
-- published, but nothing when the total does not change.
-- KEYS[1] permits key N
-- KEYS[2] leases {N}:timeout
-- KEYS[3] channel redisson_sc:{N}
-- ARGV[1] the new total
-- ARGV[2] publish mode: PUBLISH, SPUBLISH, or BOTH
-- Returns 1 when something changed, 0 when the total already was ARGV[1].
--@include notify
local available = redis.call('get', KEYS[1])
if not available then
    redis.call('set', KEYS[1], ARGV[1])
    notify(KEYS[3], ARGV[1], ARGV[2])
    return 1
end
local total = redis.call('zcount', KEYS[2], 0, '+inf') + tonumber(available)
if total == tonumber(ARGV[1]) then
    return 0
end
redis.call('incrby', KEYS[1], tonumber(ARGV[1]) - total)
notify(KEYS[3], ARGV[1], ARGV[2])
return 1
