-- Fenced lock: acquire or re-enter, taking the next fencing token (Redisson RFencedLock, spec 2.5).
-- The hash, field and TTL are the reentrant lock's; every grant, re-entries included, increments
-- the token counter, which never expires.
-- KEYS[1] lock hash N
-- KEYS[2] token counter redisson_lock_token:{N}
-- ARGV[1] lease in ms
-- ARGV[2] owner field "<clientId>:<threadId>"
-- ARGV[3] optional: 'resolve' when an earlier acquisition of this waiting owner may have landed
--   with its reply lost: a field already there is that grant, kept (not counted again) with the
--   counter's current token, the one that grant took (nobody else can have been granted since)
-- Returns {1, token} when acquired or re-entered, else {0, the holder's PTTL in ms}. The flag is
-- explicit, so a lock key without a TTL (PTTL -1) never reads as acquired.
if ARGV[3] == 'resolve' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('pexpire', KEYS[1], ARGV[1])
    return {1, tonumber(redis.call('get', KEYS[2]) or '0')}
end
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    local token = redis.call('incr', KEYS[2])
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return {1, token}
end
return {0, redis.call('pttl', KEYS[1])}
