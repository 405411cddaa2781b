-- Semaphore or permit-expirable semaphore: remove the time to live of its keys (Redisson's
-- RExpirable clearExpire; sync spec 2.8 and 3.12). Nothing is published.
-- KEYS[1] permits key N
-- KEYS[2] optional: the leases zset {N}:timeout of a permit-expirable semaphore
-- Returns 1 if at least one key had a time to live, else 0.
local changed = 0
for _, key in ipairs(KEYS) do
    if redis.call('persist', key) == 1 then
        changed = 1
    end
end
return changed
