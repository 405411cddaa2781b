-- grouped_extend(key, owner, now, ttl, fields): a grouped multi-lock's lease (spec 2.8). While
-- owner holds every value of the set (owner field and an expiry not yet past, on the caller's
-- clock), sets each value's expiry to now + ttl and raises the key's TTL to ttl (never shortens
-- it: other owners' values live there). Returns 1 if set, 0 if the owner does not hold them all.
local function grouped_extend(key, owner, now, ttl, fields)
    for _, f in ipairs(fields) do
        local expiry = tonumber(redis.call('hget', key, f .. ':' .. owner .. ':expire_time') or '-1') or -1
        if redis.call('hget', key, f) ~= owner or expiry < now then
            return 0
        end
    end
    for _, f in ipairs(fields) do
        redis.call('hset', key, f .. ':' .. owner .. ':expire_time', now + ttl)
    end
    local pttl = redis.call('pttl', key)
    if pttl >= 0 and pttl < ttl then
        redis.call('pexpire', key, ttl)
    end
    return 1
end
