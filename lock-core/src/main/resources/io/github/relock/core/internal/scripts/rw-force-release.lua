-- Read-write lock: delete the lock if it is held in the given mode (spec 2.3/2.4 forceUnlock);
-- readers' timeout keys are left to expire on their own, as Redisson leaves them.
-- KEYS[1] lock hash N
-- KEYS[2] channel redisson_rwlock:{N}
-- ARGV[1] the mode to delete: 'read' or 'write'
-- ARGV[2] message: '0' after a read force-unlock, '1' after a write one
-- ARGV[3] publish mode: PUBLISH, SPUBLISH, or BOTH
-- Returns 1 if deleted, else 0.
--@include notify
if redis.call('hget', KEYS[1], 'mode') == ARGV[1] then
    redis.call('del', KEYS[1])
    notify(KEYS[2], ARGV[2], ARGV[3])
    return 1
end
return 0
