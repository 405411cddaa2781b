package io.github.relock.driver.lettuce;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.RedisServer;
import io.github.relock.tck.RelockTck;
import io.lettuce.core.RedisClient;

/** Runs relock's compatibility kit against the Lettuce driver on a standalone {@link RedisClient}. */
class LettuceTckTest extends RelockTck {

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
