-- The longest PTTL among the live timeout keys <prefix>:<field>:rwlock_timeout:1..count of every
-- reader of read-write lock hash `key` (read-release, read-expire); -3 when none is alive.
local function longest_reader_ttl(key, prefix)
    local longest = -3
    for _, f in ipairs(redis.call('hkeys', key)) do
        local n = tonumber(redis.call('hget', key, f))
        if n ~= nil then
            for i = n, 1, -1 do
                longest = math.max(longest, redis.call('pttl', prefix .. ':' .. f .. ':rwlock_timeout:' .. i))
            end
        end
    end
    return longest
end
