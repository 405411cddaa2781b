package com.example.acme;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.redisson.RedissonDriverTck;

/**
 * The driver author's one class: the driver contract kit and the Redisson interop rules where the
 * driver matters, against the sample Acme driver, on the kit's own Redis. Extend
 * {@code DriverTck} instead for the contract kit without Redisson.
 */
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
