package io.github.relock.driver.jedis;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.EngineSpec;
import io.github.relock.tck.fixtures.RedisServer;
import redis.clients.jedis.JedisPool;

/**
 * The engine spec on a classic {@link JedisPool}: only in {@code -Pfull} (the engine does not
 * depend on how the client holds its connections; the default build runs it on
 * {@link JedisTckTest}).
 */
class JedisPoolEngineSpecTest extends EngineSpec {

    @Override
    protected RedisDriverProvider provider() {
        return new JedisDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return new JedisPool(server.host(), server.port());
    }

    @Override
    protected void closeNativeClient(Object nativeClient) {
        JedisTopologies.close(nativeClient);
    }
}
