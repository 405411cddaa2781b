package io.github.relock.driver.jedis;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.DriverTck;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPool;

/**
 * Runs the driver contract kit against the Jedis driver on a classic {@link JedisPool} (what
 * Spring Data Redis' {@code JedisConnectionFactory} holds): every call borrows a {@code Jedis},
 * pub/sub holds one while anything is subscribed. How the client holds its connections matters to
 * exactly these chapters; the engine spec does not depend on it and runs on {@link JedisTckTest}
 * ({@code -Pfull} runs it on the pool too, {@link JedisPoolEngineSpecTest}). Uses only API present
 * in Jedis 6.0 to 8.x, so the {@code jedis-*} profiles run it against older Jedis too.
 */
class JedisPoolTckTest extends DriverTck {

    @Override
    protected RedisDriverProvider provider() {
        return new JedisDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return new JedisPool(server.host(), server.port());
    }

    @Override
    protected void closeNativeClient(Object nativeClient) {
        JedisTopologies.close(nativeClient);
    }

    @Override
    protected Object newNativeClient(RedisTopology topology, String user, String password) {
        RedisServer server = (RedisServer) topology;
        return new JedisPool(new HostAndPort(server.host(), server.port()),
                DefaultJedisClientConfig.builder().user(user).password(password).build());
    }

    @Override
    protected AutoCloseable exhaustPool(Object nativeClient, String key) {
        return JedisTopologies.exhaust(nativeClient, key);
    }
}
