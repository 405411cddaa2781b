-- Read-only view of one half of a read-write lock, for isLocked / isHeldByThread / getHoldCount /
-- remainTimeToLive (spec 2.3/2.4). The read half is locked when read, or when written by an owner
-- that also reads (Redisson 3.24+); the write half when written.
-- KEYS[1] lock hash N
-- ARGV[1] 'read' or 'write'
-- ARGV[2] owner field (may be empty)
-- Returns {locked (0/1), owner's hold count (0 if none), PTTL in ms}.
local mode = redis.call('hget', KEYS[1], 'mode')
local locked = 0
if ARGV[1] == 'read' then
    if mode == 'read' or (mode == 'write' and redis.call('hlen', KEYS[1]) > 2) then
        locked = 1
    end
elseif mode == 'write' then
    locked = 1
end
local count = 0
if ARGV[2] ~= '' then
    count = tonumber(redis.call('hget', KEYS[1], ARGV[2]) or '0') or 0
end
return {locked, count, redis.call('pttl', KEYS[1])}
