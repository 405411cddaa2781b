-- Renews one hold (lock-renew, lock-renew-node): its lock hash, its owner field, and '' or, for a
-- read hold, the prefix of its per-acquisition timeout keys <prefix>:<field>:rwlock_timeout:1..count
-- (only this owner's, as Redisson 4.4+ does: spec 4.2 ReadLockTask), or for a grouped multi-lock
-- (spec 2.8) 'G|<now>|<field names, comma-separated>|<group hash>': its key is then only a name in
-- the group's slot, and the values' expiries are set on the client's clock (needs grouped-extend).
-- Extends nothing the owner no longer holds. Returns 1 if renewed, 0 if not held.
local function renew_hold(key, field, prefix, ttl)
    if string.sub(prefix, 1, 2) == 'G|' then
        local at = string.find(prefix, '|', 3, true)
        local to = string.find(prefix, '|', at + 1, true)
        local fields = {}
        for f in string.gmatch(string.sub(prefix, at + 1, to - 1), '[^,]+') do
            fields[#fields + 1] = f
        end
        return grouped_extend(string.sub(prefix, to + 1), field, tonumber(string.sub(prefix, 3, at - 1)),
                tonumber(ttl), fields)
    end
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
