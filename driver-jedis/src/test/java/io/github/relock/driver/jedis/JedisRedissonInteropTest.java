package io.github.relock.driver.jedis;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.redisson.RedissonTck;
import redis.clients.jedis.RedisClient;

/** Runs the kit's Redisson interop chapter (relock-tck-redisson) against the Jedis driver. */
class JedisRedissonInteropTest extends RedissonTck {

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
