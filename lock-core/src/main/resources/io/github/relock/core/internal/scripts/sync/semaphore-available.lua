-- Semaphore: read the number of available permits (Redisson RSemaphore.availablePermits, a plain
-- GET there; sync spec 2.5). Read-only.
-- KEYS[1] permits key N
-- Returns the number of available permits, 0 when the key is missing.
return tonumber(redis.call('get', KEYS[1]) or '0')
