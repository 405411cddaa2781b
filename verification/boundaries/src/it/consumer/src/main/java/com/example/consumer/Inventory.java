package com.example.consumer;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.core.RedisLocks;

/** A user's code: connects through whatever driver ServiceLoader finds and takes a lock. */
public final class Inventory {
    private Inventory() {
    }

    /**
     * @param redisUri the server
     * @return whether a lock could be taken and released
     */
    public static boolean reserve(String redisUri) {
        try (LockClient locks = RedisLocks.connect(redisUri)) {
            DistributedLock lock = locks.getLock("consumer:sku-1");
            if (!lock.tryLock()) {
                return false;
            }
            lock.unlock();
            return !lock.isLocked();
        }
    }
}
