package io.github.relock.driver.springdata;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.redisson.RedissonTck;

/**
 * The kit's Redisson interop chapter (relock-tck-redisson) against the driver; a subclass names the
 * backing client's factory ({@link Factories}) and, for Sentinel or cluster, the topology.
 */
abstract class SpringDataRedissonInteropKit extends RedissonTck {

    @Override
    protected RedisDriverProvider provider() {
        return new SpringDataDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return newNativeClient((RedisTopology) server);
    }

    /** @return a started factory of the subclass's backing client on the topology */
    @Override
    protected abstract Object newNativeClient(RedisTopology topology);

    @Override
    protected void closeNativeClient(Object factory) {
        Factories.dispose(factory);
    }
}
