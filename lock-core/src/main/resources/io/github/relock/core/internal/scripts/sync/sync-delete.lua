-- Semaphore or permit-expirable semaphore: delete it (Redisson delete(), a plain DEL there; sync
-- spec 2.8 and 3.12). Nothing is published.
-- KEYS[1] permits key N
-- KEYS[2] optional: the leases zset {N}:timeout of a permit-expirable semaphore
-- Returns how many of the keys existed.
return redis.call('del', unpack(KEYS))
