-- Removes a closing relock client's owner info. KEYS[1] relock:{clients}:<clientId>
return redis.call('del', KEYS[1])
