package io.github.relock.driver.jedis;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.DriverKit;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.ReplicaSyncChapter;
import org.junit.jupiter.api.Nested;
import redis.clients.jedis.RedisClient;

/**
 * Runs the TCK's replica-sync chapter (15) against the Jedis driver, until {@code RelockTck}
 * nests it with the other chapters.
 */
class JedisReplicaSyncTest extends DriverKit {

    @Override
    protected RedisDriverProvider provider() {
        return new JedisDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return RedisClient.create(server.uri());
    }

    @Override
    protected void closeNativeClient(Object nativeClient) {
        ((RedisClient) nativeClient).close();
    }

    @Nested
    class ReplicaSync extends ReplicaSyncChapter {
        ReplicaSync() {
            super(JedisReplicaSyncTest.this);
        }
    }
}
