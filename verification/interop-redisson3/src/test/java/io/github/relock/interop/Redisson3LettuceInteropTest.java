package io.github.relock.interop;

import io.github.relock.driver.lettuce.LettuceDriverProvider;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.RuleSlice;
import io.github.relock.tck.redisson.RedissonTck;
import io.lettuce.core.RedisClient;

/**
 * The kit's Redisson interop rules where the driver matters (tag {@code interop-pubsub}), relock
 * on Lettuce against Redisson 3.17.7; {@link Redisson3JedisInteropTest} runs the whole chapter on
 * the reference driver, and {@code -Pfull} ({@code -Drelock.tck.allRules=true}) runs it here too.
 */
@RuleSlice(value = "interop-pubsub", elsewhere = "Redisson3JedisInteropTest runs the whole chapter")
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
