-- Read-only view of a lock hash, for isLocked / isHeldByThread / getHoldCount / remainTimeToLive.
-- KEYS[1] lock hash N
-- ARGV[1] owner field "<clientId>:<threadId>" (may be empty)
-- Returns {exists (0/1), owner's hold count (0 if none), PTTL in ms}.
local count = 0
if ARGV[1] ~= '' then
    count = tonumber(redis.call('hget', KEYS[1], ARGV[1]) or '0') or 0
end
return {redis.call('exists', KEYS[1]), count, redis.call('pttl', KEYS[1])}
