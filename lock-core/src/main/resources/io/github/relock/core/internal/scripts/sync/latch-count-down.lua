-- Count-down latch: count down by one (Redisson RCountDownLatch.countDown, sync spec 4.2). The key
-- goes when the count reaches zero or below; "0" (ZERO_COUNT: open) is published only when it
-- reaches exactly zero. On a missing key nothing lasting happens and nothing is published.
-- KEYS[1] count key N
-- KEYS[2] channel redisson_countdownlatch__channel__{N}
-- ARGV[1] publish mode: PUBLISH, SPUBLISH, or BOTH
-- Returns the count after this call; zero or below means the latch is open.
--@include notify
local count = redis.call('decr', KEYS[1])
if count <= 0 then
    redis.call('del', KEYS[1])
end
if count == 0 then
    notify(KEYS[2], '0', ARGV[1])
end
return count
