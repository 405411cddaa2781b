package io.github.relock.driver.springdata;

import java.util.Arrays;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import redis.clients.jedis.UnifiedJedis;

/**
 * Scripts on a cluster-aware {@code JedisConnectionFactory}. Spring's cluster connection sends a
 * command it does not know ({@code execute(command, args)}) to an arbitrary node, and its keyed
 * variant puts the key first, where {@code EVALSHA} wants the SHA-1; so the script goes through the
 * factory's own cluster client ({@code getNativeConnection()}, a {@link UnifiedJedis} over the
 * cluster), whose {@code evalsha}/{@code eval} routes it by the slot of its first key (every key of
 * one call shares it) and follows redirections. The reply is Jedis' raw one, as on the generic path.
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

    /**
     * @param c a connection of a cluster-aware factory
     * @param argv {@code [body, numkeys, keys..., args...]}
     * @return Jedis' raw reply
     */
    static Object call(RedisConnection c, String command, byte[][] argv, int keyCount) {
        UnifiedJedis cluster = (UnifiedJedis) c.getNativeConnection();
        byte[][] params = Arrays.copyOfRange(argv, 2, argv.length);
        return "EVALSHA".equals(command)
                ? cluster.evalsha(argv[0], keyCount, params)
                : cluster.eval(argv[0], keyCount, params);
    }
}
