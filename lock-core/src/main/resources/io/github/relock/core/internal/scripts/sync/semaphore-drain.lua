-- Semaphore: take every available permit (Redisson RSemaphore.drainPermits, sync spec 2.4).
-- The key is rewritten with a plain SET, so any TTL goes; nothing is published.
-- KEYS[1] permits key N
-- Returns how many permits were available (may be negative; the key then holds 0), 0 when missing.
local available = redis.call('get', KEYS[1])
if not available then
    return 0
end
redis.call('set', KEYS[1], 0)
return tonumber(available)
