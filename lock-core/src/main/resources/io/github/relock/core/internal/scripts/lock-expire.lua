-- Sets a held lock's TTL (MultiLock/RedLock apply the caller's lease to every lock once all are
-- taken, spec 6.1; LockLease.expireIn and releaseAfter set a lease's). Only while the given owner
-- still holds it; only PEXPIRE on the lock hash (spec 2.1: a hold is its owner field there).
-- KEYS[1] lock hash N
-- ARGV[1] TTL in ms
-- ARGV[2] owner field
-- Returns 1 if set, 0 if the owner does not hold the lock.
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('pexpire', KEYS[1], ARGV[1])
    return 1
end
return 0
