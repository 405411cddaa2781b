-- Reentrant lock: release one hold (spec 2.1). Publishes "0" (UNLOCK, wakes one waiter) when the
-- last hold goes. Unlike Redisson's script, a caller that does not hold the lock learns why.
-- KEYS[1] lock hash N
-- KEYS[2] channel redisson_lock__channel:{N}
-- ARGV[1] lease in ms to set when holds remain
-- ARGV[2] owner field "<clientId>:<threadId>"
-- ARGV[3] publish mode: PUBLISH, SPUBLISH, or BOTH (cluster: classic and sharded subscribers)
-- ARGV[4] optional: local hand-off, the field of a waiting owner of the releasing client; or ''
--   at the end of a run of hand-offs: publish as usual and say whether another subscriber heard it
-- ARGV[5] with a field in ARGV[4]: that owner's lease in ms
-- Returns 1 released, 0 still held (reentrant), -1 not held and the lock is free,
-- -2 not held and another owner holds it, 2 released and handed to ARGV[4] (the first and only
-- candidate; nothing published: the lock never became free, so no waiter has anything to race for),
-- 3 released, and (ARGV[4] '') more than one subscriber, so another client's waiter, heard it.
--@include notify
if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then
    if redis.call('exists', KEYS[1]) == 0 then
        return -1
    end
    return -2
end
local remaining = redis.call('hincrby', KEYS[1], ARGV[2], -1)
if remaining > 0 then
    redis.call('pexpire', KEYS[1], ARGV[1])
    return 0
end
redis.call('del', KEYS[1])
if ARGV[4] and ARGV[4] ~= '' then
    redis.call('hset', KEYS[1], ARGV[4], 1)
    redis.call('pexpire', KEYS[1], ARGV[5])
    return 2
end
local heard = notify(KEYS[2], '0', ARGV[3])
if ARGV[4] == '' and heard > 1 then
    return 3
end
return 1
