-- Fenced lock: the last token granted on this name (spec 2.5 getToken), or nil if none ever was.
-- KEYS[1] token counter redisson_lock_token:{N}
return redis.call('get', KEYS[1])
