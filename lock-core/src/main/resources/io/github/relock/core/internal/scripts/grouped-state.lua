-- Grouped multi-lock (spec 2.8): read-only view of a set, for isLocked / isHeldByThread /
-- getHoldCount / remainTimeToLive.
-- KEYS[1] group hash N
-- ARGV[1] owner field (may be empty)
-- ARGV[2] now, the caller's wall clock in ms
-- ARGV[3..] the values' field names F(v)
-- Returns {locked: 1 if any value has an owner whose expiry is not past, the owner's hold count
-- (the least over the values, 0 unless it holds every value), ms until the latest live expiry
-- among the values (-2 if none)}.
local now = tonumber(ARGV[2])
local latest = -1
local count = nil
for i = 3, #ARGV do
    local holder = redis.call('hget', KEYS[1], ARGV[i])
    local expiry = -1
    if holder then
        expiry = tonumber(redis.call('hget', KEYS[1], ARGV[i] .. ':' .. holder .. ':expire_time') or '-1') or -1
        if expiry >= now and expiry > latest then
            latest = expiry
        end
    end
    local mine = 0
    if ARGV[1] ~= '' and holder == ARGV[1] and expiry >= now then
        mine = tonumber(redis.call('hget', KEYS[1], ARGV[i] .. ':' .. holder .. ':lock_count') or '0') or 0
    end
    if count == nil or mine < count then
        count = mine
    end
end
if latest < 0 then
    return {0, 0, -2}
end
return {1, count or 0, latest - now}
