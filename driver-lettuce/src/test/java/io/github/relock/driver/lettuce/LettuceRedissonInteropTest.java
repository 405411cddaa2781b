package io.github.relock.driver.lettuce;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.redisson.RedissonTck;
import io.lettuce.core.RedisClient;

/**
 * Runs the kit's whole Redisson interop chapter (relock-tck-redisson) against the Lettuce driver:
 * only in {@code -Pfull}. The default build runs the rules where the driver matters in
 * {@link LettuceTckTest} and the whole chapter on the reference driver (Jedis).
 */
class LettuceRedissonInteropTest extends RedissonTck {

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
}
