package io.github.relock.driver.lettuce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.relock.api.RedisErrorException;
import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.Lane;
import io.github.relock.spi.NoScriptException;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The driver on a {@link RedisClusterClient}, against a real one-node Redis Cluster. */
class ClusterExecutorTest {
    private static OneNodeCluster cluster;
    private RedisClusterClient client;
    private CommandExecutor executor;

    @BeforeAll
    static void startCluster() throws Exception {
        assumeTrue(OneNodeCluster.available(), "no embedded redis-server binary for this platform");
        cluster = OneNodeCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void open() {
        cluster.call("FLUSHALL");
        cluster.call("SCRIPT", "FLUSH");
        client = RedisClusterClient.create(cluster.uri().toString());
        executor = new LettuceDriverProvider().create(client, TestRedis.OPTIONS);
    }

    @AfterEach
    void closeAll() {
        executor.close();
        client.shutdown();
    }

    @Test
    void capabilities_clusterReplicaWaitAndShardedPubSub_onRedis7() {
        assertEquals(EnumSet.of(Capability.CLUSTER, Capability.REPLICA_WAIT, Capability.SHARDED_PUBSUB),
                executor.capabilities());
    }

    @Test
    void scripts_routedByFirstKey_noScriptThenEval_errorsTyped() {
        Script s = new Script("hset", "redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) return redis.call('HGETALL', KEYS[1])");
        List<String> keys = List.of("{lock}:a");
        assertThrows(NoScriptException.class, () -> executor.eval(ScriptCall.bySha(s, keys, List.of("f", "v"))));
        assertEquals(List.of("f", "v"), executor.eval(ScriptCall.byText(s, keys, List.of("f", "v"))));
        assertEquals(List.of("f", "w"), executor.eval(ScriptCall.bySha(s, keys, List.of("f", "w"))));
        assertEquals(List.of("f", "x"), TestRedis.get(executor.evalAsync(ScriptCall.bySha(s, keys, List.of("f", "x")), Lane.APPLICATION)));
        assertEquals("x", cluster.call("HGET", "{lock}:a", "f"));
        Script bad = new Script("bad", "return redis.call('INCR', KEYS[1])");
        RedisErrorException e = assertThrows(RedisErrorException.class, () -> executor.eval(ScriptCall.byText(bad, keys, List.of())));
        assertEquals("WRONGTYPE", e.errorCode());
    }

    @Test
    void evalShaWithWait_onTheKeysNode() {
        Script s = new Script("set", "return redis.call('SET', KEYS[1], ARGV[1])");
        executor.eval(ScriptCall.byText(s, List.of("w"), List.of("0")));
        assertEquals(Arrays.asList("OK", 0L), executor.evalShaWithWait(s, List.of("w"), List.of("1"), 0, 0));
        assertEquals("1", cluster.call("GET", "w"));
        assertThrows(IllegalArgumentException.class, () -> executor.evalShaWithWait(s, List.of(), List.of(), 0, 0));
    }

    @Test
    void pubSub_oneConnection_reconnectReported() throws Exception {
        AtomicInteger reconnects = new AtomicInteger();
        LinkedBlockingQueue<Integer> reconnected = new LinkedBlockingQueue<>();
        executor.setConnectionListener(() -> reconnected.add(reconnects.incrementAndGet()));
        LinkedBlockingQueue<String> got = new LinkedBlockingQueue<>();
        Subscription a = TestRedis.get(executor.subscribe("c:a", false, (c, m) -> got.add(c + "=" + m)));
        Subscription b = TestRedis.get(executor.subscribe("c:b", false, (c, m) -> got.add(c + "=" + m)));
        cluster.call("PUBLISH", "c:a", "1");
        assertEquals("c:a=1", got.poll(20, TimeUnit.SECONDS));
        cluster.call("CLIENT", "KILL", "TYPE", "pubsub");
        assertEquals(1, reconnected.poll(20, TimeUnit.SECONDS));
        cluster.call("PUBLISH", "c:b", "2");
        assertEquals("c:b=2", got.poll(20, TimeUnit.SECONDS));
        TestRedis.get(a.unsubscribe());
        TestRedis.get(b.unsubscribe());
        assertEquals(List.of(), cluster.call("PUBSUB", "CHANNELS"));
        assertEquals(1, reconnects.get());
    }

    @Test
    void close_keepsHandedInClusterClientUsable() {
        executor.close();
        try (StatefulRedisClusterConnection<String, String> c = client.connect()) {
            assertEquals("PONG", c.sync().ping());
        }
    }
}
