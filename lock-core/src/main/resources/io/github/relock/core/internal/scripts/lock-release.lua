-- Reentrant lock: release one hold (spec 2.1). Publishes "0" (UNLOCK, wakes one waiter) when the
-- last hold goes. Unlike Redisson's script, a caller that does not hold the lock learns why.
-- KEYS[1] lock hash N
-- KEYS[2] channel redisson_lock__channel:{N}
-- KEYS[3], KEYS[4] the waiting relock clients relock__waiters:{N} and the wake channel
--   relock__wake:{N} (directed wake-ups, fragments/wake.lua)
-- ARGV[1] lease in ms to set when holds remain
-- ARGV[2] owner field "<clientId>:<threadId>"
-- ARGV[3] publish mode: PUBLISH, SPUBLISH, or BOTH (cluster: classic and sharded subscribers)
-- ARGV[4] optional, local hand-off: the field of a waiting owner of the releasing client ('' for none)
-- ARGV[5] with ARGV[4]: that owner's lease in ms
-- ARGV[6], ARGV[7] with ARGV[4]: the releasing client's own classic and sharded subscriptions to
--   KEYS[2] that this node counts (1 and 0 on one server; on a cluster the classic one only when
--   the client's classic pub/sub connection is on this node); any other subscriber is another
--   client's waiter
-- ARGV[8] optional, directed wake-ups on: the releasing client's id
-- ARGV[9] with ARGV[8]: '1' when the releasing client has waiters of its own on the lock (it stays registered)
-- Returns {code, n}: {1, heard} released (heard: subscribers of this server that received the
-- wake-up: Redisson's "0", or a directed one), {0, 0} still held (reentrant), {-1, 0} not held and the lock is free, {-2, 0} not held and
-- another owner holds it, {2, 0} released and handed to ARGV[4] in the same step: nothing published
-- (the lock never became free, so no waiter has anything to race for). The hand-off is made only
-- while no other client's waiter listens on the channel: then the release is an ordinary one, so
-- that waiter gets its chance at the lock.
--@include notify
--@include outsiders
--@include wake
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
    if redis.call('exists', KEYS[1]) == 0 then
        return {-1, 0}
    end
    return {-2, 0}
end
local remaining = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if remaining > 0 then
    redis.call('pexpire', KEYS[1], ARGV[1])
    return {0, 0}
end
redis.call('del', KEYS[1])
if ARGV[4] and ARGV[4] ~= '' and outsiders(KEYS[2], tonumber(ARGV[6]), tonumber(ARGV[7])) == 0 then
    redis.call('hset', KEYS[1], ARGV[4], 1)
    redis.call('pexpire', KEYS[1], ARGV[5])
    if ARGV[8] and ARGV[8] ~= '' then
        -- The owner it goes to was this client's waiter, registered when its attempt failed: the
        -- client leaves the waiting clients (if it still has waiters, its next release, which finds
        -- them, registers it again at the back).
        redis.call('zrem', KEYS[3], ARGV[8])
    end
    return {2, 0}
end
return {1, wake(KEYS[2], ARGV[3], KEYS[3], KEYS[4], ARGV[8], ARGV[9])}
