-- Semaphore, permit-expirable semaphore or count-down latch: read the time to live of its one
-- key N (Redisson's remainTimeToLive, a plain PTTL there, and isExists, a plain EXISTS: PTTL
-- answers -2 exactly when the key does not exist; sync spec 2.8, 3.12). Read-only.
-- KEYS[1] the key N (a semaphore's permits, a latch's count)
-- Returns the ms left, -1 when the key has no time to live, -2 when it does not exist.
return redis.call('pttl', KEYS[1])
