-- Semaphore: take permits if enough are available (Redisson RSemaphore.tryAcquire, sync spec 2.1).
-- A missing key means no permits; nothing is created. DECRBY keeps the key's TTL.
-- KEYS[1] permits key N (string: the number of available permits)
-- ARGV[1] permits wanted, > 0
-- Returns 1 when they were taken, 0 when fewer are available (or the key is missing).
local available = redis.call('get', KEYS[1])
if available and tonumber(available) >= tonumber(ARGV[1]) then
    redis.call('decrby', KEYS[1], ARGV[1])
    return 1
end
return 0
