-- Permit-expirable semaphore: take permits, each with a lease (Redisson RPermitExpirableSemaphore
-- tryAcquire/acquire, sync spec 3.4: the 3.23.4+ script; with one id the state is also 3.17.7's).
-- First as many ended leases as permits are wanted come back to the pool (announced when the pool
-- is then positive). When enough permits are available, each id becomes a member of the leases
-- zset with the deadline as score, and the zset takes the permits key's TTL when it has one.
-- KEYS[1] permits key N (available permits)
-- KEYS[2] leases {N}:timeout (zset: permit id bytes -> deadline)
-- KEYS[3] channel redisson_sc:{N}
-- ARGV[1] now: the client's wall clock, epoch ms
-- ARGV[2] deadline: epoch ms when the lease ends (an integer), or 922337203685477 for never
-- ARGV[3] publish mode: PUBLISH, SPUBLISH, or BOTH
-- ARGV[4], ARGV[5], ... permit ids, hex text, one per permit wanted (at least one)
-- Returns nil when acquired; otherwise the earliest deadline of the held permits (epoch ms; a
-- waiter need not sleep past it), or 0 when none of them ever ends (wait for a message).
--@include notify
--@include sync/permit-id
--@include sync/permit-reclaim
local NEVER = 922337203685477
local wanted = #ARGV - 3
reclaim(KEYS[1], KEYS[2], KEYS[3], ARGV[1], wanted, ARGV[3])
local available = redis.call('get', KEYS[1])
if available and tonumber(available) >= wanted then
    redis.call('decrby', KEYS[1], wanted)
    for i = 4, #ARGV do
        redis.call('zadd', KEYS[2], ARGV[2], permit_bytes(ARGV[i]))
    end
    local ttl = redis.call('pttl', KEYS[1])
    if ttl > 0 then
        redis.call('pexpire', KEYS[2], ttl)
    end
    return nil
end
local earliest = redis.call('zrange', KEYS[2], 0, 0, 'withscores')
if earliest[1] and tonumber(earliest[2]) ~= NEVER then
    return tonumber(earliest[2])
end
return 0
