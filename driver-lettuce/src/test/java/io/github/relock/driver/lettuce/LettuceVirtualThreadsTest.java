package io.github.relock.driver.lettuce;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.VirtualThreadsKit;
import io.lettuce.core.RedisClient;

/** The kit's virtual-thread chapter on the Lettuce driver (runs on JDK 21+, skips saying why on 17). */
class LettuceVirtualThreadsTest extends VirtualThreadsKit {

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
