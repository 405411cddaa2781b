-- Grouped multi-lock (spec 2.8): free every value of the set whoever holds it, and publish "0".
-- KEYS[1] group hash N
-- KEYS[2] channel redisson_lock__channel:{N}
-- ARGV[1] publish mode (as lock-release)
-- ARGV[2..] the values' field names F(v)
-- Returns 1 if a value had an owner field, else 0.
--@include notify
local removed = 0
for i = 2, #ARGV do
    local holder = redis.call('hget', KEYS[1], ARGV[i])
    if holder then
        redis.call('hdel', KEYS[1], ARGV[i], ARGV[i] .. ':' .. holder .. ':expire_time',
                ARGV[i] .. ':' .. holder .. ':lock_count')
        removed = 1
    end
end
notify(KEYS[2], '0', ARGV[1])
return removed
