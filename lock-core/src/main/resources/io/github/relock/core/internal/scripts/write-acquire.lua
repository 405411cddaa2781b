-- Write lock: acquire or re-enter (Redisson RReadWriteLock's write half, spec 2.4). Exclusive:
-- taken only when nobody holds the lock, or re-entered by its writer. An owner holding only a read
-- lock cannot upgrade (Redisson cannot either): relock refuses that at once instead of letting
-- the owner wait forever on itself.
-- KEYS[1] lock hash N
-- ARGV[1] lease in ms
-- ARGV[2] writer field "<clientId>:<threadId>:write"
-- ARGV[3] the same owner's reader field "<clientId>:<threadId>"
-- ARGV[4] optional: 'resolve' when an earlier acquisition of this waiting owner may have landed
--   with its reply lost: a waiting writer holds no write, so its field there is that grant, kept
-- Returns nil when acquired; -3 for an upgrade (refused); otherwise the lock's PTTL in ms.
local mode = redis.call('hget', KEYS[1], 'mode')
if ARGV[4] == 'resolve' and mode == 'write' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if mode == false then
    redis.call('hset', KEYS[1], 'mode', 'write')
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    -- as Redisson: a re-entry adds its lease to the remaining TTL
    redis.call('pexpire', KEYS[1], redis.call('pttl', KEYS[1]) + tonumber(ARGV[1]))
    return nil
end
if mode == 'read' and redis.call('hexists', KEYS[1], ARGV[3]) == 1 then
    return -3
end
return redis.call('pttl', KEYS[1])
