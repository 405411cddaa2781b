package io.github.relock.driver.jedis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.UnifiedJedis;

/**
 * Which Jedis the tests run on, and the calls {@link JedisVersions} adapts, on that Jedis. The
 * build tells the test JVM the version it put on the class path ({@code relock.expect.jedis}:
 * {@code jedis.version}, or the old one in a {@code jedis-*} profile), so a profile that silently
 * ran on the compile-time Jedis fails here.
 */
@ExtendWith(RedisFixture.class)
class JedisVersionsTest {
    private final DriverOptions options = new DriverOptions(Duration.ofSeconds(2), "relock:test-" + UUID.randomUUID());

    @Test
    void runningJedis_isTheVersionTheBuildPutOnTheClassPath() {
        String expected = System.getProperty("relock.expect.jedis");
        assertNotNull(expected, "the build sets relock.expect.jedis for the test JVM");
        assertEquals(expected, JedisVersions.VERSION);
    }

    @Test
    void openPooled_isRedisClientOn7AndLater_jedisPooledOn6() {
        boolean seven = !JedisVersions.VERSION.startsWith("6.");
        try (UnifiedJedis client = JedisVersions.openPooled(new HostAndPort("localhost", 1),
                DefaultJedisClientConfig.builder().build())) {
            assertEquals(seven ? "RedisClient" : "JedisPooled", client.getClass().getSimpleName());
            assertFalse(JedisVersions.isCluster(client));
        }
    }

    @Test
    void connect_opensAPooledClientOfThisJedis_andReplicaWaitPipelines(RedisServer server) {
        try (CommandExecutor ex = new JedisDriverProvider().connect(server.uri(), options)) {
            Script one = new Script("one", "return 1");
            assertEquals(1L, ex.eval(ScriptCall.byText(one, List.of(), List.of())));
            List<Object> replies = ex.evalShaWithWait(one, List.of("k"), List.of(), 0, 100);
            assertEquals(List.of(1L, 0L), replies, "the script's reply, then WAIT's count of replicas");
        }
    }

    @Test
    void jedisPool_replicaWaitPipelinesOnABorrowedJedis(RedisServer server) {
        try (JedisPool pool = new JedisPool(server.host(), server.port());
             CommandExecutor ex = new JedisDriverProvider().create(pool, options)) {
            Script one = new Script("one", "return 1");
            assertEquals(1L, ex.eval(ScriptCall.byText(one, List.of(), List.of())));
            assertEquals(List.of(1L, 0L), ex.evalShaWithWait(one, List.of(), List.of(), 0, 100));
            assertTrue(pool.getNumActive() == 0, "every borrowed Jedis went back, active: " + pool.getNumActive());
        }
    }
}
