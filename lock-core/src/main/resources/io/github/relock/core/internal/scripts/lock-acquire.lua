-- Reentrant lock: acquire or re-enter (Redisson RLock wire format, spec 2.1).
-- KEYS[1] lock hash N
-- KEYS[2] optional, with ARGV[5]: the waiting relock clients relock__waiters:{N} (fragments/wake.lua)
-- ARGV[1] lease in ms (the watchdog timeout when the lock is renewed by the holder's client)
-- ARGV[2] owner field "<clientId>:<threadId>"
-- ARGV[3] 'nonreentrant' refuses a re-entry (Redisson 4.4+ non-reentrant lock, spec 2.7), or ''
-- ARGV[4] 'resolve' when an earlier acquisition or hand-off of this waiting owner may have landed
--   with its reply lost: a waiting owner holds nothing of the lock, so a field already there is
--   that grant, kept (its TTL set) instead of counted again; or ''
-- ARGV[5] optional: the attempt is a wait's and directed wake-ups are on; the client's id, which
--   a failed attempt registers in KEYS[2] (at the back unless already there), to be woken by a
--   release (fragments/wake.lua), and a granted one takes off; the set lives a minute past the
--   holder's TTL
-- Returns nil when acquired or re-entered; -3 when a non-reentrant lock's holder asks again
-- (a PTTL is never below -2); otherwise the holder's remaining PTTL in ms.
if ARGV[4] == 'resolve' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if ARGV[3] == 'nonreentrant' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    return -3
end
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    if ARGV[5] then
        redis.call('zrem', KEYS[2], ARGV[5]) -- granted: its release registers it again if it has other waiters
    end
    return nil
end
local ttl = redis.call('pttl', KEYS[1])
if ARGV[5] then
    if redis.call('zscore', KEYS[2], ARGV[5]) == false then
        local last = redis.call('zrange', KEYS[2], -1, -1, 'withscores')
        redis.call('zadd', KEYS[2], (last[2] or 0) + 1, ARGV[5])
    end
    if redis.call('pttl', KEYS[2]) < ttl + 60000 then
        redis.call('pexpire', KEYS[2], ttl + 60000)
    end
end
return ttl
