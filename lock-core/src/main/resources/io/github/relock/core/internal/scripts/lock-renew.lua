-- Watchdog: renew a batch of held locks in one call (spec 4.2). A lock is renewed only while the
-- given owner still holds it, so a renewal can never resurrect or extend someone else's lock.
-- KEYS[i] lock hash of the i-th hold (all in one cluster slot)
-- ARGV[1] new TTL in ms (the watchdog timeout)
-- ARGV[2i] owner field of the i-th hold
-- ARGV[2i + 1] '' for an exclusive hold; for a read hold, the prefix of its per-acquisition
--   timeout keys ({N}), whose keys <prefix>:<field>:rwlock_timeout:1..count are renewed with it
--   (only this owner's, as Redisson 4.4+ does: spec 4.2 ReadLockTask)
-- Returns an array: 1 where renewed, 0 where the owner no longer holds the lock.
local result = {}
for i = 1, #KEYS do
    local field = ARGV[2 * i]
    local prefix = ARGV[2 * i + 1]
    local count = tonumber(redis.call('hget', KEYS[i], field) or '0') or 0
    if count > 0 then
        redis.call('pexpire', KEYS[i], ARGV[1])
        if prefix ~= '' then
            for k = count, 1, -1 do
                redis.call('pexpire', prefix .. ':' .. field .. ':rwlock_timeout:' .. k, ARGV[1])
            end
        end
        result[i] = 1
    else
        result[i] = 0
    end
end
return result
