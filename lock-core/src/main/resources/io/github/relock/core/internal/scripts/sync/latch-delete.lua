-- Count-down latch: delete it (Redisson RCountDownLatch.delete, sync spec 4.4). Publishes "1"
-- (NEW_COUNT), as Redisson does: a delete does not open Redisson's waiting gates.
-- KEYS[1] count key N
-- KEYS[2] channel redisson_countdownlatch__channel__{N}
-- ARGV[1] publish mode: PUBLISH, SPUBLISH, or BOTH
-- Returns 1 when the latch existed, 0 otherwise.
--@include notify
if redis.call('del', KEYS[1]) == 1 then
    notify(KEYS[2], '1', ARGV[1])
    return 1
end
return 0
