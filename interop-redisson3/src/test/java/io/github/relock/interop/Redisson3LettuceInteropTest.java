package io.github.relock.interop;

import io.github.relock.driver.lettuce.LettuceDriverProvider;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.RedisServer;
import io.github.relock.tck.redisson.RedissonTck;
import io.lettuce.core.RedisClient;

/** The kit's Redisson interop chapter, relock on Lettuce against Redisson 3.17.7. */
class Redisson3LettuceInteropTest extends RedissonTck {

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
