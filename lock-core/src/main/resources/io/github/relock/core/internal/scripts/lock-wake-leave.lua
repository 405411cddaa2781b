-- Reentrant lock, directed wake-ups (fragments/wake.lua): the last waiter of a client left
-- without the lock, or its entry's linger ended (or the client closes). The client leaves the set
-- of waiting clients; if the lock is free, a wake-up may have come to it unused, so the next
-- registered client is woken (passed on).
-- KEYS[1] lock hash N
-- KEYS[2] channel redisson_lock__channel:{N}
-- KEYS[3], KEYS[4] the waiting relock clients relock__waiters:{N} and the wake channel relock__wake:{N}
-- ARGV[1] the client's id
-- ARGV[2] publish mode
-- Returns 1 if a wake-up was passed on, else 0.
--@include notify
--@include wake
redis.call('zrem', KEYS[3], ARGV[1])
-- With no other client registered nobody waits for a directed wake-up: a "0" the client heard was
-- heard by every listener, and a client not yet registered attempts once it listens. So a client
-- that leaves (its linger over, or closing) publishes nothing then.
if redis.call('exists', KEYS[1]) == 0 and redis.call('exists', KEYS[3]) == 1 then
    wake(KEYS[2], ARGV[2], KEYS[3], KEYS[4], '', '0')
    return 1
end
return 0
