package io.github.relock.driver.lettuce;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.DriverKit;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.ReplicaSyncChapter;
import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.Nested;

/**
 * Runs the TCK's replica-sync chapter (15) against the Lettuce driver, until {@code RelockTck}
 * nests it with the other chapters.
 */
class LettuceReplicaSyncTest extends DriverKit {

    @Override
    protected RedisDriverProvider provider() {
        return new LettuceDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return RedisClient.create(server.uri().toString());
    }

    @Override
    protected void closeNativeClient(Object nativeClient) {
        ((RedisClient) nativeClient).shutdown();
    }

    @Nested
    class ReplicaSync extends ReplicaSyncChapter {
        ReplicaSync() {
            super(LettuceReplicaSyncTest.this);
        }
    }
}
