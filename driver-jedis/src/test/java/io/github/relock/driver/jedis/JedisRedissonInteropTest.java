package io.github.relock.driver.jedis;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RedisTopology.Kind;
import io.github.relock.tck.redisson.RedissonTck;
import redis.clients.jedis.RedisClient;

/**
 * Runs the kit's Redisson interop chapter (relock-tck-redisson) against the Jedis driver on every
 * topology: a {@code RedisClient}, a {@code RedisClusterClient} and a {@code RedisSentinelClient}.
 */
@Topologies({Kind.SINGLE, Kind.CLUSTER, Kind.SENTINEL})
class JedisRedissonInteropTest extends RedissonTck {

    @Override
    protected RedisDriverProvider provider() {
        return new JedisDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return RedisClient.create(server.uri());
    }

    @Override
    protected Object newNativeClient(RedisTopology topology) {
        return JedisTopologies.client(topology);
    }

    @Override
    protected void closeNativeClient(Object nativeClient) {
        JedisTopologies.close(nativeClient);
    }
}
