-- Replica-sync barrier (LockOptions.replicaSync, NOSCRIPT path only): a write that always
-- replicates, so that the WAIT pipelined behind it covers every earlier write of the master.
-- KEYS[1] = a marker key in the lock key's slot; it lives one millisecond.
redis.call('set', KEYS[1], '1', 'px', 1)
return 1
