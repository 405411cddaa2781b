-- prune(queue, deadlines, now): drop fair-lock waiters at the head of the queue whose deadline
-- has passed, and repair a head that has no deadline (it could block the queue forever).
local function prune(queue, deadlines, now)
    while true do
        local head = redis.call('lindex', queue, 0)
        if not head then
            return
        end
        local deadline = redis.call('zscore', deadlines, head)
        if deadline == false or tonumber(deadline) <= now then
            redis.call('zrem', deadlines, head)
            redis.call('lpop', queue)
        else
            return
        end
    end
end
