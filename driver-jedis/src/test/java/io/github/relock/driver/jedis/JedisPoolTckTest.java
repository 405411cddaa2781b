package io.github.relock.driver.jedis;

import io.github.relock.tck.RedisServer;
import redis.clients.jedis.JedisPool;

/**
 * Runs the whole relock TCK against the Jedis driver on a classic {@link JedisPool} (what Spring
 * Data Redis' {@code JedisConnectionFactory} holds): every call borrows a {@code Jedis}, pub/sub
 * holds one while anything is subscribed. Uses only API present in Jedis 6.0 to 8.x, so the
 * {@code jedis-*} profiles run it against older Jedis too.
 */
class JedisPoolTckTest extends JedisTckTest {

    @Override
    protected Object newNativeClient(RedisServer server) {
        return new JedisPool(server.host(), server.port());
    }
}
