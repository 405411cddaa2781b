-- outsiders(channel, ownClassic, ownSharded): how many subscribers of this server listen on the
-- lock's channel besides the releasing client's own subscriptions (ownClassic classic ones, and
-- ownSharded sharded ones, as that client knows it holds on this server: on a cluster its classic
-- subscriptions are on whichever node its classic pub/sub connection is; a server without sharded pub/sub has
-- no sharded subscriber). A subscriber on a lock channel is a
-- waiter, so more than none means another client, relock's or Redisson's, waits for the lock.
-- On a cluster a node counts only its own classic subscribers, so a waiter subscribed classic on
-- another node goes uncounted (the run bound of local hand-off covers it).
local function outsiders(channel, ownClassic, ownSharded)
    local classic = redis.call('pubsub', 'numsub', channel)[2] - ownClassic
    local sharded = 0
    local ok, counts = pcall(redis.call, 'pubsub', 'shardnumsub', channel)
    if ok then
        sharded = counts[2] - ownSharded
    end
    return math.max(classic, 0) + math.max(sharded, 0)
end
