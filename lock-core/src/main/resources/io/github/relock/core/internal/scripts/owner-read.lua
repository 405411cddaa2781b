-- Reads the owner info of several relock clients, for LockClient.inspect.
-- KEYS relock:{clients}:<clientId>, one per client (one hash slot).
-- Returns per key {host, application, instance, version}, each false when the key is missing.
local out = {}
for i = 1, #KEYS do
    out[i] = redis.call('hmget', KEYS[i], 'host', 'application', 'instance', 'version')
end
return out
