-- reclaim(permits, leases, channel, now, limit, mode): give the permits whose lease ended at or
-- before `now` back to the pool, at most `limit` of them (-1: all), and announce the new number of
-- available permits when it is positive (sync spec 3.3). Needs the notify fragment. Returns how many
-- came back. The members are removed in chunks, so a long list cannot overflow Lua's stack; the
-- resulting state and the one message are those of Redisson's single ZREM.
local function reclaim(permits, leases, channel, now, limit, mode)
    local lost = redis.call('zrangebyscore', leases, 0, now, 'limit', 0, limit)
    if #lost == 0 then
        return 0
    end
    for first = 1, #lost, 1000 do
        redis.call('zrem', leases, unpack(lost, first, math.min(first + 999, #lost)))
    end
    local available = redis.call('incrby', permits, #lost)
    if available > 0 then
        notify(channel, available, mode)
    end
    return #lost
end
