-- Fair lock: acquire, re-enter, or queue (Redisson RFairLock wire format, spec 2.2).
-- KEYS[1] lock hash N
-- KEYS[2] queue redisson_lock_queue:{N} (list of owner fields, oldest first)
-- KEYS[3] deadlines redisson_lock_timeout:{N} (zset: owner field -> epoch-ms deadline)
-- ARGV[1] lease in ms
-- ARGV[2] owner field "<clientId>:<threadId>"
-- ARGV[3] wait: how long a waiter that stops polling keeps its place (fairLockWaitTimeout), ms
-- ARGV[4] now: the client's wall clock, epoch ms
-- ARGV[5] 'queue' to join the queue when the lock is not free, 'try' for a single attempt
-- ARGV[6] 'nonreentrant' refuses a re-entry (Redisson 4.4+ non-reentrant fair lock), or 'reentrant'
-- ARGV[7] optional: 'resolve' when an earlier acquisition or hand-off of this waiting owner may have
--   landed with its reply lost: a field already there is that grant, kept instead of counted again
-- Returns nil when acquired or re-entered; -3 when a non-reentrant lock's holder asks again;
-- otherwise how long to wait before polling again (ms).
--
-- Difference from Redisson, compatible with its waiters in the same queue: a queued waiter that
-- polls moves its own deadline forward to what a new waiter at its position would get
-- (lock TTL + position * wait). A live waiter therefore keeps its place however long the lock is
-- held. While the lock is free, a poller caps the head's deadline at now + wait, so a head whose
-- process died blocks the queue for at most `wait` after the release.
local wait = tonumber(ARGV[3])
local now = tonumber(ARGV[4])

if ARGV[7] == 'resolve' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end

--@include prune
prune(KEYS[2], KEYS[3], now)

-- The lock is free but someone else heads the queue: a live head is woken by the release and
-- claims within milliseconds, so give it `wait` from now at most; a dead one is pruned then.
if redis.call('exists', KEYS[1]) == 0 then
    local head = redis.call('lindex', KEYS[2], 0)
    if head and head ~= ARGV[2] and tonumber(redis.call('zscore', KEYS[3], head)) > now + wait then
        redis.call('zadd', KEYS[3], now + wait, head)
    end
end

if redis.call('exists', KEYS[1]) == 0
        and (redis.call('exists', KEYS[2]) == 0 or redis.call('lindex', KEYS[2], 0) == ARGV[2]) then
    redis.call('lpop', KEYS[2])
    redis.call('zrem', KEYS[3], ARGV[2])
    -- everyone left moves up one slot
    local waiting = redis.call('zrange', KEYS[3], 0, -1)
    for i = 1, #waiting do
        redis.call('zincrby', KEYS[3], -wait, waiting[i])
    end
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end

if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    if ARGV[6] == 'nonreentrant' then
        return -3
    end
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return nil
end

local pttl = redis.call('pttl', KEYS[1])
if ARGV[5] == 'try' then
    return math.max(pttl, 0)
end

local score = redis.call('zscore', KEYS[3], ARGV[2])
if score ~= false then
    -- already queued: refresh the deadline for its current position
    local position = 0
    local queue = redis.call('lrange', KEYS[2], 0, -1)
    for i = 1, #queue do
        if queue[i] == ARGV[2] then
            position = i
            break
        end
    end
    if position > 0 then
        local fresh = now + math.max(pttl, 0) + position * wait
        if fresh > tonumber(score) then
            redis.call('zadd', KEYS[3], fresh, ARGV[2])
        end
    else
        -- a score without a queue entry (cannot come from relock): drop it and queue afresh
        redis.call('zrem', KEYS[3], ARGV[2])
        score = false
    end
    if score ~= false then
        return math.max(pttl, 0)
    end
end

local ttl
local last = redis.call('lindex', KEYS[2], -1)
local lastScore = false
if last and last ~= ARGV[2] then
    lastScore = redis.call('zscore', KEYS[3], last)
end
if lastScore ~= false then
    ttl = tonumber(lastScore) - now
else
    ttl = pttl
end
if redis.call('zadd', KEYS[3], ttl + wait + now, ARGV[2]) == 1 then
    redis.call('rpush', KEYS[2], ARGV[2])
end
return math.max(ttl, 0)
