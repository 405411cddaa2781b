package io.github.relock.driver.jedis;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.RedisServer;
import io.github.relock.tck.RelockTck;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;

/**
 * Runs the whole relock TCK against the Jedis driver on the pooled single-node client of the Jedis
 * on the class path: a {@code RedisClient} on Jedis 7+, a {@code JedisPooled} on Jedis 6 (made the
 * way the driver's own {@code connect} makes it), so the {@code jedis-*} profiles run it too.
 */
class JedisTckTest extends RelockTck {

    @Override
    protected RedisDriverProvider provider() {
        return new JedisDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return JedisVersions.openPooled(new HostAndPort(server.host(), server.port()),
                DefaultJedisClientConfig.builder().build());
    }

    /** Closes any Jedis client or pool (all are {@link AutoCloseable}); the subclasses rely on it. */
    @Override
    protected void closeNativeClient(Object nativeClient) {
        try {
            ((AutoCloseable) nativeClient).close();
        } catch (Exception e) {
            throw new IllegalStateException("closing " + nativeClient + " failed", e);
        }
    }
}
