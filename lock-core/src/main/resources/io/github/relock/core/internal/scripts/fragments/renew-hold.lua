-- Renews one hold (lock-renew, lock-renew-node): its lock hash, its owner field, and '' or, for a
-- read hold, the prefix of its per-acquisition timeout keys <prefix>:<field>:rwlock_timeout:1..count
-- (only this owner's, as Redisson 4.4+ does: spec 4.2 ReadLockTask). Extends nothing the owner no
-- longer holds. Returns 1 if renewed, 0 if not held.
local function renew_hold(key, field, prefix, ttl)
    local count = tonumber(redis.call('hget', key, field) or '0') or 0
    if count <= 0 then
        return 0
    end
    redis.call('pexpire', key, ttl)
    if prefix ~= '' then
        for k = count, 1, -1 do
            redis.call('pexpire', prefix .. ':' .. field .. ':rwlock_timeout:' .. k, ttl)
        end
    end
    return 1
end
