-- wake(channel, mode, waiters, wakeChannel, self, selfWaits): wakes the next waiter of a lock that
-- just became free (needs notify). Directed wake-ups (issue 37 item 4): a relock client whose
-- waiter found the lock busy registers in the sorted set `waiters` (relock__waiters:{N}, members
-- client ids, scored by arrival, oldest first) and listens, besides Redisson's channel, on the
-- lock's wake channel (relock__wake:{N}), subscribing Redisson's first and unsubscribing it last.
-- So Redisson's channel has at least as many subscribers as the wake channel, and every
-- subscriber beyond them is not a waiting relock client: a Redisson waiter, an older relock, a
-- listener. While there is none, one "<client id>" on that client's own channel
-- (relock__wake:{N}:<client id>, which each waiting relock client listens on too) wakes the oldest
-- registered client (one waiter in it), taken off the set; it registers again in the step its
-- attempt fails. Only that client hears it: a message on the shared wake channel, which now only
-- counts the listeners, cost every waiting client a read per release (the curve of acquisitions/s
-- fell with the clients while the scripts per acquisition stayed at 3). If nobody hears it (the
-- client is between its unsubscribes, or its own subscription failed), "0" goes out as below. Otherwise (or nobody registered, or `waiters` is empty: directed wake-ups off,
-- a cluster) Redisson's "0" goes out exactly as before, and every subscribed client wakes one
-- waiter. A client registers only once it listens (its attempts after joining the channel), so
-- more registered clients than listeners means a registered one is gone: then the set is cleared
-- and "0" goes out (every live waiter attempts and registers again). `self` (the releasing client, or '') leaves the set, or, when `selfWaits` is '1' (it
-- has waiters of its own on the lock), stays or joins it at the back.
-- Only classic PUBLISH (one server): on a cluster a node cannot count classic subscribers of
-- other nodes. Returns how many subscribers of this server received the wake-up.
local function wake(channel, mode, waiters, wakeChannel, self, selfWaits)
    if self ~= nil and self ~= '' then
        if selfWaits == '1' then
            if redis.call('zscore', waiters, self) == false then
                local last = redis.call('zrange', waiters, -1, -1, 'withscores')
                redis.call('zadd', waiters, (last[2] or 0) + 1, self)
            end
        else
            redis.call('zrem', waiters, self)
        end
    end
    if mode == 'PUBLISH' and waiters ~= nil and redis.call('exists', waiters) == 1 then
        local listening = redis.call('pubsub', 'numsub', wakeChannel)[2]
        if redis.call('pubsub', 'numsub', channel)[2] <= listening then
            if redis.call('zcard', waiters) <= listening then
                local next = redis.call('zpopmin', waiters)
                local heard = redis.call('publish', wakeChannel .. ':' .. next[1], next[1])
                if heard > 0 then
                    return heard
                end
            else
                -- More clients registered than listen: one died (or lost its subscription) while
                -- registered. Wake everyone as before; the live waiters register again as they fail.
                redis.call('del', waiters)
            end
        end
    end
    return notify(channel, '0', mode)
end
