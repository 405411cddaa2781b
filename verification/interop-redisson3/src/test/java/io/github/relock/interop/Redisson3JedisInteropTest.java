package io.github.relock.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.driver.jedis.JedisDriverProvider;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.redisson.RedissonTck;
import org.junit.jupiter.api.BeforeAll;
import redis.clients.jedis.RedisClient;

/** The kit's Redisson interop chapter, relock on Jedis against Redisson 3.17.7. */
class Redisson3JedisInteropTest extends RedissonTck {

    @BeforeAll
    static void redissonIsTheOldBaseline() {
        String version = org.redisson.Redisson.class.getPackage().getImplementationVersion();
        assertTrue(version == null || version.startsWith("3.17"), "expected Redisson 3.17.x, found " + version);
    }

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
