package io.github.relock.driver.jedis;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.VirtualThreadsKit;
import redis.clients.jedis.DefaultJedisClientConfig;
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
        // Generous timeouts: a connection that times out on a loaded machine is replaced, and the
        // replacement's connect pins inside Jedis, which is not what the rule measures.
        return RedisClient.builder().hostAndPort(server.host(), server.port())
                .clientConfig(DefaultJedisClientConfig.builder().timeoutMillis(30_000).build()).build();
    }

    @Override
    protected void closeNativeClient(Object nativeClient) {
        ((RedisClient) nativeClient).close();
    }
}
