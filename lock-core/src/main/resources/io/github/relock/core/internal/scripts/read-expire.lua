-- Read lock: set one reader's TTL (LockLease.expireIn, releaseAfter). Only this owner's timeout
-- keys get the TTL (a key already expired stays expired); the hash then lives as long as the
-- longest live timeout key of any reader, as the read release sets it, so no other reader is cut
-- short. While the lock is in write mode (this owner writes too: only the writer may read then),
-- the hash keeps the writer's TTL and is only ever extended, as a read acquisition does.
-- KEYS[1] lock hash N
-- KEYS[2] this owner's timeout prefix {N}:<field>:rwlock_timeout
-- KEYS[3] key prefix {N} (N when N contains '{')
-- ARGV[1] TTL in ms
-- ARGV[2] reader field
-- Returns 1 if set, 0 if the owner holds no read lock (or none of its timeout keys is alive).
--@include longest-reader
local count = tonumber(redis.call('hget', KEYS[1], ARGV[2]) or '0') or 0
if count <= 0 then
    return 0
end
local live = 0
for k = count, 1, -1 do
    live = live + redis.call('pexpire', KEYS[2] .. ':' .. k, ARGV[1])
end
if live == 0 then
    return 0
end
if redis.call('hget', KEYS[1], 'mode') == 'write' then
    redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[1])))
    return 1
end
local longest = longest_reader_ttl(KEYS[1], KEYS[3])
if longest > 0 then
    redis.call('pexpire', KEYS[1], longest)
end
return 1
