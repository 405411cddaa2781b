package com.example.consumer;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.core.RedisLocks;
import java.net.URI;

/**
 * A user's application, launched with a plain {@code java --module-path ... -m
 * com.example.consumer/com.example.consumer.Main jedis|lettuce redis://...}: it makes its own
 * client, hands it to relock and takes a lock. No {@code --add-modules}: the driver's module
 * descriptor must bring the explicit modules its automatic client module cannot name.
 */
public final class Main {
    private Main() {
    }

    /**
     * @param args the client ({@code jedis} or {@code lettuce}) and the server's URI
     */
    public static void main(String[] args) {
        String driver = args[0];
        URI uri = URI.create(args[1]);
        if (driver.equals("jedis")) {
            try (redis.clients.jedis.RedisClient jedis = redis.clients.jedis.RedisClient.create(uri)) {
                lockOnce(jedis, driver);
            }
        } else {
            io.lettuce.core.RedisClient lettuce = io.lettuce.core.RedisClient.create(uri.toString());
            try {
                lockOnce(lettuce, driver);
            } finally {
                lettuce.shutdown();
            }
        }
    }

    private static void lockOnce(Object client, String driver) {
        try (LockClient locks = RedisLocks.create(client)) {
            DistributedLock lock = locks.getLock("consumer:module-path:" + driver);
            lock.lock();
            lock.unlock();
            System.out.println("locked and released through " + driver + " on the module path: "
                    + RedisLocks.class.getModule().isNamed());
        }
    }
}
