package io.github.relock.driver.jedis;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.RedisServer;
import io.github.relock.tck.RelockTck;
import redis.clients.jedis.RedisClient;

/** Runs the whole relock TCK against the Jedis driver on a pooled {@link RedisClient}. */
class JedisTckTest extends RelockTck {

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
