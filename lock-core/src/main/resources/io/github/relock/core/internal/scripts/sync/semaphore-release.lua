-- Semaphore: give permits back (Redisson RSemaphore.release, sync spec 2.2; with 'ifexists',
-- releaseIfExists of Redisson 4.0+, spec 2.3). Anyone may release; there is no upper bound. The new
-- number of available permits is published: Redisson wakes that many of its waiters at most.
-- INCRBY creates a missing key (without TTL) and keeps an existing key's TTL.
-- KEYS[1] permits key N
-- KEYS[2] channel redisson_sc:{N}
-- ARGV[1] permits to give back, > 0
-- ARGV[2] publish mode: PUBLISH, SPUBLISH, or BOTH
-- ARGV[3] optional: 'ifexists' releases only into an existing key
-- Returns the new number of available permits; nil when 'ifexists' found no key (nothing changed).
--@include notify
if ARGV[3] == 'ifexists' and redis.call('exists', KEYS[1]) == 0 then
    return nil
end
local available = redis.call('incrby', KEYS[1], ARGV[1])
notify(KEYS[2], available, ARGV[2])
return available
