package io.github.relock.driver.jedis;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.RedisServer;
import io.github.relock.tck.VirtualThreadsKit;
import redis.clients.jedis.RedisClient;

/**
 * The kit's virtual-thread chapter on the Jedis driver. Skipped on JDK 17; the build runs it again
 * on the JDK named by {@code RELOCK_VTHREAD_JAVA} (.ci/run finds a JDK 21+).
 */
class JedisVirtualThreadsTest extends VirtualThreadsKit {

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
}
