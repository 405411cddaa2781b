-- notify(channel, message, mode): publish a lock message. mode PUBLISH reaches classic
-- subscribers, SPUBLISH sharded ones, BOTH reaches both (cluster: Redisson 3.x and 4.x waiters);
-- the sharded half of BOTH is skipped quietly where the server has no SPUBLISH; NONE publishes
-- nothing (the spin lock has no waiters to wake). Returns how many subscribers of this server
-- received it (classic and sharded together for BOTH).
local function notify(channel, message, mode)
    if mode == 'NONE' then
        return 0
    end
    local heard = 0
    if mode ~= 'SPUBLISH' then
        heard = redis.call('publish', channel, message)
    end
    if mode == 'SPUBLISH' then
        heard = redis.call('spublish', channel, message)
    elseif mode == 'BOTH' then
        local ok, sharded = pcall(redis.call, 'spublish', channel, message)
        if ok then
            heard = heard + sharded
        end
    end
    return heard
end
