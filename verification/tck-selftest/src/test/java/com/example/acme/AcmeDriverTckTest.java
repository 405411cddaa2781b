package com.example.acme;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.redisson.RedissonDriverTck;
import org.junit.jupiter.api.Tag;

/**
 * The driver author's one class: the driver contract kit and the Redisson interop rules where the
 * driver matters, against the sample Acme driver, on the kit's own Redis. Extend
 * {@code DriverTck} instead for the contract kit without Redisson.
 *
 * <p>Runs with {@code -Pfull} (tag {@code selftest-full}): every build certifies a {@code com.example}
 * driver in one class already ({@code RespDriverTckTest} in examples/resp-driver, written from
 * scratch), and this sample's traffic is the Jedis driver's, whose kit classes run the same rules;
 * what this class adds is the Redisson slice extended from outside relock's packages.
 */
@Tag("selftest-full")
class AcmeDriverTckTest extends RedissonDriverTck {

    @Override
    protected RedisDriverProvider provider() {
        return new AcmeDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return AcmeClient.connect(server.uri());
    }

    @Override
    protected void closeNativeClient(Object client) {
        ((AcmeClient) client).close();
    }
}
