-- Semaphore and permit-expirable semaphore: set the number of permits once (Redisson
-- trySetPermits of both, sync spec 2.6 and 3.8; the TTL form is RSemaphore's, Redisson 3.29+).
-- A key that exists with any value is left alone.
-- KEYS[1] permits key N
-- KEYS[2] channel redisson_sc:{N}
-- ARGV[1] permits
-- ARGV[2] publish mode: PUBLISH, SPUBLISH, or BOTH
-- ARGV[3] optional: time to live of the key in ms ('' or absent: none)
-- Returns 1 when set (and ARGV[1] published), 0 when the key already existed.
--@include notify
if redis.call('get', KEYS[1]) then
    return 0
end
if ARGV[3] and ARGV[3] ~= '' then
    redis.call('set', KEYS[1], ARGV[1], 'px', ARGV[3])
else
    redis.call('set', KEYS[1], ARGV[1])
end
notify(KEYS[2], ARGV[1], ARGV[2])
return 1
