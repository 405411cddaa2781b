package io.github.relock.driver.springdata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import io.github.relock.spi.pubsub.ConnectionPubSub;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * The pub/sub connections' lives (fast default-build checks; the kit exercises the rest).
 *
 * <p>Jedis: Jedis' reading loop stops when Redis counts zero channels, and anything sent after that is
 * never read, so the connection a subscription used must never serve another command. It is
 * closed when the last channel leaves, and the next subscription's new connection is set up as the
 * application configured the factory (user, password, database).
 *
 * <p>Lettuce, across a factory restart, in the order of events the kit meets only on a loaded
 * machine (rule 28.5 failed so, on the cluster): Lettuce's shutdown closes the connection's
 * channel and marks the connection closed from different threads, so the disconnect event can
 * come while the connection does not yet say it is closed. The test hands the transport that
 * event itself, at that moment (before the restart), instead of the one the shutdown would send;
 * the channel must still be subscribed again once the factory runs.
 */
class SpringDataPubSubTest {
    private static final DriverOptions OPTIONS = new DriverOptions(Duration.ofSeconds(5), "relock:sdr-pubsub");
    private static final Script ONE = new Script("one", "return 1");
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static RedisServer server;

    @BeforeAll
    static void start() {
        server = RedisServer.startEmbedded();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void pubSubConnection_isClosedWhenLastChannelLeaves_neverServesAScript() throws Exception {
        closedAfterLastChannel(server);
    }

    /** A Sentinel factory's client shows no pool: the session opens its own connection to the primary. */
    @Test
    void pubSubConnection_onSentinelFactory_isClosedWhenLastChannelLeaves() throws Exception {
        closedAfterLastChannel(RedisSentinelGroup.shared());
    }

    private static void closedAfterLastChannel(RedisTopology topology) throws Exception {
        JedisConnectionFactory factory = Factories.jedis(topology);
        try (CommandExecutor e = new SpringDataDriverProvider().create(factory, OPTIONS)) {
            for (int round = 0; round < 3; round++) {
                Subscription s = e.subscribe("relock_sdr_pubsub", false, (c, m) -> { }).get(10, TimeUnit.SECONDS);
                assertEquals(1, pubSubClients(topology).size(), "one pub/sub connection while subscribed: " + clients(topology));
                s.unsubscribe().get(10, TimeUnit.SECONDS);
                Await.until(WAIT, () -> pubSubClients(topology).isEmpty(), () -> "the connection that subscribed is "
                        + "still open (a pool would hand it to a script): " + clients(topology));
                for (int i = 0; i < 20; i++) {
                    assertEquals(1L, e.eval(ScriptCall.byText(ONE, List.of(), List.of())), "a script's reply after the session ended");
                }
            }
        } finally {
            Factories.dispose(factory);
        }
    }

    @Test
    void nextSubscription_onUserPasswordAndDatabase_isAuthenticatedAndSelected() throws Exception {
        server.call("ACL", "SETUSER", "relock-sdr", "on", ">s3cret", "~*", "&*", "+@all");
        RedisStandaloneConfiguration where = new RedisStandaloneConfiguration(server.host(), server.port());
        where.setUsername("relock-sdr");
        where.setPassword("s3cret");
        where.setDatabase(3);
        JedisConnectionFactory factory = new JedisConnectionFactory(where,
                JedisClientConfiguration.builder().readTimeout(Duration.ofSeconds(5)).usePooling().build());
        factory.afterPropertiesSet();
        factory.start();
        try (CommandExecutor e = new SpringDataDriverProvider().create(factory, OPTIONS)) {
            for (String channel : List.of("relock_sdr_first", "relock_sdr_second")) {
                List<String> heard = new CopyOnWriteArrayList<>();
                Subscription s = e.subscribe(channel, false, (c, m) -> heard.add(m)).get(10, TimeUnit.SECONDS);
                List<String> sub = pubSubClients(server);
                assertEquals(1, sub.size(), clients(server));
                assertTrue(sub.get(0).contains(" user=relock-sdr ") && sub.get(0).contains(" db=3 "),
                        "the pub/sub connection is not the factory's user on database 3: " + sub.get(0));
                server.call("PUBLISH", channel, "hello");
                Await.until(WAIT, () -> heard.contains("hello"), () -> channel + " heard " + heard);
                s.unsubscribe().get(10, TimeUnit.SECONDS);
                Await.until(WAIT, () -> pubSubClients(server).isEmpty(), () -> "still open: " + clients(server));
            }
            assertEquals(1L, e.eval(ScriptCall.byText(ONE, List.of(), List.of())));
        } finally {
            Factories.dispose(factory);
            server.call("ACL", "DELUSER", "relock-sdr");
        }
    }

    @Test
    void disconnectHeardBeforeTheShutdownMarksTheConnectionClosed_channelIsSubscribedAgainOnceTheFactoryRuns()
            throws Exception {
        LettuceConnectionFactory factory = Factories.lettuce(server);
        AtomicReference<LettucePubSubTransport> transport = new AtomicReference<>();
        ConnectionPubSub pubSub = new ConnectionPubSub(events -> {
            LettucePubSubTransport t = new LettucePubSubTransport(factory, events);
            transport.set(t);
            return t;
        }, "restart test", Duration.ofSeconds(5), false, Duration.ZERO);
        try {
            List<String> heard = new CopyOnWriteArrayList<>();
            Subscription s = pubSub.subscribe("relock_sdr_restart", false, (c, m) -> heard.add(m))
                    .get(10, TimeUnit.SECONDS);
            StatefulRedisPubSubConnection<String, String> link = transport.get().current();
            assertNotNull(link, "the connection the subscribe opened");
            link.removeListener((RedisConnectionStateListener) transport.get()); // its own event is the one below
            transport.get().onRedisDisconnected((RedisChannelHandler<?, ?>) link);
            Factories.restart(factory);
            Await.until(Duration.ofSeconds(30), () -> {
                server.call("PUBLISH", "relock_sdr_restart", "again");
                return heard.contains("again");
            }, () -> "the channel subscribed before the restart is not heard again ("
                    + server.call("PUBSUB", "NUMSUB", "relock_sdr_restart") + ")");
            s.unsubscribe().get(10, TimeUnit.SECONDS);
        } finally {
            pubSub.close();
            Factories.dispose(factory);
        }
    }

    /** @return the CLIENT LIST lines (every data node's) of connections whose last command was a (un)subscribe */
    private static List<String> pubSubClients(RedisTopology topology) {
        return Arrays.stream(clients(topology).split("\n"))
                .filter(l -> l.contains(" cmd=subscribe") || l.contains(" cmd=unsubscribe"))
                .filter(l -> !l.contains(" name=sentinel-")) // Sentinels listen on every node's hello channel
                .map(l -> " " + l.strip() + " ")
                .collect(Collectors.toList());
    }

    private static String clients(RedisTopology topology) {
        return String.valueOf(topology.call("CLIENT", "LIST"));
    }
}
