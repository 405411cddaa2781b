-- Count-down latch: read the count (Redisson RCountDownLatch.getCount, a plain GET there; sync
-- spec 4.3). Read-only.
-- KEYS[1] count key N
-- Returns the count, 0 when the key is missing (the latch is open).
return tonumber(redis.call('get', KEYS[1]) or '0')
