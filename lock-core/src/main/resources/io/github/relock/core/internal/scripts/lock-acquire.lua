-- Reentrant lock: acquire or re-enter (Redisson RLock wire format, spec 2.1).
-- KEYS[1] lock hash N
-- ARGV[1] lease in ms (the watchdog timeout when the lock is renewed by the holder's client)
-- ARGV[2] owner field "<clientId>:<threadId>"
-- ARGV[3] 'nonreentrant' refuses a re-entry (Redisson 4.4+ non-reentrant lock, spec 2.7), or ''
-- ARGV[4] 'resolve' when an earlier acquisition or hand-off of this waiting owner may have landed
--   with its reply lost: a waiting owner holds nothing of the lock, so a field already there is
--   that grant, kept (its TTL set) instead of counted again; or ''
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
    return nil
end
return redis.call('pttl', KEYS[1])
