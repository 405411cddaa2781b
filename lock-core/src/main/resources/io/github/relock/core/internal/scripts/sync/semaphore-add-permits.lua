-- Semaphore and permit-expirable semaphore: add (or, negative, remove) permits (Redisson
-- addPermits, sync spec 2.7 and 3.10). The key is rewritten with a plain SET, so any TTL goes.
-- RSemaphore publishes the new total, even when it is zero or negative (Redisson's own listener
-- throws on a negative one; that is what Redisson sends). The permit-expirable semaphore publishes
-- the number added, and only when it is positive.
-- KEYS[1] permits key N
-- KEYS[2] channel redisson_sc:{N}
-- ARGV[1] permits to add (may be negative)
-- ARGV[2] publish mode: PUBLISH, SPUBLISH, or BOTH
-- ARGV[3] optional: 'expirable' for the permit-expirable semaphore's message
-- Returns the new number of available permits.
--@include notify
local available = tonumber(redis.call('get', KEYS[1]) or '0') + tonumber(ARGV[1])
redis.call('set', KEYS[1], available)
if ARGV[3] ~= 'expirable' then
    notify(KEYS[2], available, ARGV[2])
elseif tonumber(ARGV[1]) > 0 then
    notify(KEYS[2], ARGV[1], ARGV[2])
end
return available
