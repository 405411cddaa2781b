-- Registers (or refreshes) a relock client's owner info, for LockClient.inspect.
-- KEYS[1] relock:{clients}:<clientId>
-- ARGV[1] host, ARGV[2] application, ARGV[3] instance, ARGV[4] version, ARGV[5] TTL in ms
redis.call('hset', KEYS[1], 'host', ARGV[1], 'application', ARGV[2], 'instance', ARGV[3], 'version', ARGV[4])
redis.call('pexpire', KEYS[1], ARGV[5])
return 1
