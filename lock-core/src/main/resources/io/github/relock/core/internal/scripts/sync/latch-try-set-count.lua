-- Count-down latch: set the count once (Redisson RCountDownLatch.trySetCount, sync spec 4.1).
-- Publishes "1" (NEW_COUNT: Redisson's waiters close their local gate). The key gets no TTL.
-- KEYS[1] count key N
-- KEYS[2] channel redisson_countdownlatch__channel__{N} (always braces, sync spec 1.1)
-- ARGV[1] count
-- ARGV[2] publish mode: PUBLISH, SPUBLISH, or BOTH
-- Returns 1 when set, 0 when the latch already had a count.
--@include notify
if redis.call('exists', KEYS[1]) == 1 then
    return 0
end
redis.call('set', KEYS[1], ARGV[1])
notify(KEYS[2], '1', ARGV[2])
return 1
