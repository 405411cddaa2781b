-- Semaphore or permit-expirable semaphore: set the time to live of its keys (Redisson's
-- RExpirable expire, expireIfSet/IfNotSet/IfGreater/IfLess; sync spec 2.8 and 3.12: over N, and
-- for the permit-expirable semaphore over N and its leases zset together). Nothing is published.
-- KEYS[1] permits key N
-- KEYS[2] optional: the leases zset {N}:timeout of a permit-expirable semaphore
-- ARGV[1] 'in' (ARGV[2] is a time to live in ms) or 'at' (ARGV[2] is an epoch ms)
-- ARGV[2] the ms
-- ARGV[3] '' for always, or PEXPIRE's condition: NX, XX, GT or LT (Redis 7.0+)
-- Returns 1 if at least one key got the expiry, else 0.
local command = ARGV[1] == 'at' and 'pexpireat' or 'pexpire'
local changed = 0
for _, key in ipairs(KEYS) do
    local set
    if ARGV[3] == '' then
        set = redis.call(command, key, ARGV[2])
    else
        set = redis.call(command, key, ARGV[2], ARGV[3])
    end
    if set == 1 then
        changed = 1
    end
end
return changed
