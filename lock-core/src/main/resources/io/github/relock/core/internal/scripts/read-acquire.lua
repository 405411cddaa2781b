-- Read lock: acquire or re-enter (Redisson RReadWriteLock's read half, spec 2.3). Readers share
-- the lock; a writer's own owner may also read (downgrade). Each acquisition k of an owner gets
-- its own timeout key <KEYS[2]>:k with the lease as TTL: Redisson's read release reads them to
-- decide whether readers are still alive, so they are kept exactly as it keeps them.
-- KEYS[1] lock hash N
-- KEYS[2] this owner's timeout prefix {N}:<field>:rwlock_timeout
-- ARGV[1] lease in ms
-- ARGV[2] reader field "<clientId>:<threadId>"
-- ARGV[3] the same owner's writer field "<clientId>:<threadId>:write"
-- ARGV[4] optional: 'resolve' when an earlier acquisition of this waiting owner may have landed
--   with its reply lost: a waiting reader holds no read, so its field there is that grant, kept
-- Returns nil when acquired; otherwise the lock's PTTL in ms.
if ARGV[4] == 'resolve' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    return nil
end
local mode = redis.call('hget', KEYS[1], 'mode')
if mode == false then
    redis.call('hset', KEYS[1], 'mode', 'read')
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('set', KEYS[2] .. ':1', 1, 'px', ARGV[1])
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end
if mode == 'read' or (mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 1) then
    local k = redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('set', KEYS[2] .. ':' .. k, 1, 'px', ARGV[1])
    redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[1])))
    return nil
end
return redis.call('pttl', KEYS[1])
