package io.github.relock.driver.springdata;

import java.util.Arrays;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * Scripts on a cluster-aware {@code JedisConnectionFactory}: Spring's cluster connection sends an
 * unknown command to an arbitrary node, and its keyed variant puts the key where {@code EVALSHA}
 * wants the SHA-1; so scripts go through the factory's cluster client ({@code getNativeConnection()},
 * a {@link UnifiedJedis}), which routes by the first key's slot and follows redirections.
 *
 * <p>With {@link JedisPubSubTransport}, the only classes that touch Jedis; loaded only for a
 * {@code JedisConnectionFactory}.
 *
 * <p>Thread-safety: stateless.
 */
final class JedisClusterScripts {

    private JedisClusterScripts() {
    }

    /** @return whether the factory talks to a Redis Cluster */
    static boolean isCluster(RedisConnectionFactory factory) {
        return factory instanceof JedisConnectionFactory jedis && jedis.isRedisClusterAware();
    }

    /** @return Jedis' raw reply to {@code command} with {@code argv = [body, numkeys, keys..., args...]} */
    static Object call(RedisConnection c, String command, byte[][] argv, int keyCount) {
        UnifiedJedis cluster = (UnifiedJedis) c.getNativeConnection();
        byte[][] params = Arrays.copyOfRange(argv, 2, argv.length);
        return "EVALSHA".equals(command)
                ? cluster.evalsha(argv[0], keyCount, params)
                : cluster.eval(argv[0], keyCount, params);
    }
}
