package io.github.relock.tck;

import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.core.RedisLocks;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.BlackHoleProxy;
import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What every kit needs from a driver under test: its provider and how to make and close a native
 * client, plus per-test resources that are closed after each test. {@link DriverTck} (the driver
 * contract), {@link EngineSpec} (the engine's chapters), {@link RelockTck} (both),
 * {@link VirtualThreadsKit} and {@link FailoverKit} extend it.
 *
 * <pre>{@code
 * class MyDriverTckTest extends DriverTck { // or RelockTck, EngineSpec, VirtualThreadsKit
 *     protected RedisDriverProvider provider() { return new MyDriverProvider(); }
 *     protected Object newNativeClient(RedisServer server) { return new MyClient(server.uri()); }
 *     protected void closeNativeClient(Object client) { ((MyClient) client).close(); }
 * }
 * }</pre>
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@ExtendWith(RedisFixture.class)
@ExtendWith(RuleSlice.Condition.class)
public abstract class DriverKit {
    private final List<AutoCloseable> resources = new ArrayList<>();
    /** The topology of this {@link Topologies} invocation; null when the class is not annotated. */
    RedisTopology.Kind topologyKind;
    /** The server choice of this {@link Topologies} invocation ({@link Topologies#server()}); empty: the suite's. */
    String redisServer = "";

    /** Creates the kit (JUnit does this). */
    protected DriverKit() {
    }

    /** @return the provider under test */
    protected abstract RedisDriverProvider provider();

    /**
     * @param server the server to connect to
     * @return a new native client of the type the driver supports (as an application would make it)
     */
    protected abstract Object newNativeClient(RedisServer server);

    /** @param nativeClient a client from {@link #newNativeClient}, to close */
    protected abstract void closeNativeClient(Object nativeClient);

    /**
     * @return the single server of {@link RedisFixture}: the kit's own server when
     *     {@link #topology()} is the default, and the pattern for private servers a rule starts
     */
    public RedisServer server() {
        return RedisFixture.shared(redisServer);
    }

    /**
     * How long a lock (or a semaphore's permit) may stay free while a caller of any client is
     * inside an acquire before the liveness rules (21.x, 24.5) fail. The default is
     * {@link LivenessChapter#BOUND} (500 ms, or {@code -Drelock.tck.liveness.boundMs}). A kit
     * whose client is slower to hand a free lock to a waiter may widen it, saying why in its
     * javadoc: the rules still fail a waiter asleep for a TTL or a lost wake-up, which last seconds.
     *
     * @return the bound the liveness rules hold this kit to
     */
    public Duration livenessBound() {
        return LivenessChapter.BOUND;
    }

    /**
     * Where the chapters run: on a class annotated {@link Topologies}, the shared fixture of the
     * running invocation's topology ({@link #server()}, {@link RedisCluster#shared()} or
     * {@link RedisSentinelGroup#shared()}); otherwise {@link #server()}. A kit class that names a
     * cluster or a Sentinel deployment overrides {@link #newNativeClient(RedisTopology)}. Rules that
     * only make sense on one server (stopping it, pausing it) are skipped elsewhere, each with its
     * reason.
     *
     * @return the deployment the chapters run on
     */
    public RedisTopology topology() {
        return topologyKind == null || topologyKind == RedisTopology.Kind.SINGLE ? server()
                : TopologyInvocations.On.fixture(topologyKind, redisServer);
    }

    /**
     * @param topology where to connect: {@link #topology()}
     * @return a new native client for it; the default handles a {@link RedisServer} with
     *     {@link #newNativeClient(RedisServer)}, and a cluster or Sentinel kit overrides it
     */
    protected Object newNativeClient(RedisTopology topology) {
        if (topology instanceof RedisServer s) {
            return newNativeClient(s);
        }
        throw new UnsupportedOperationException(getClass().getName() + " runs on a " + topology.kind()
                + " deployment: override newNativeClient(RedisTopology) to make a client for it");
    }

    /**
     * A native client of {@code topology} logged in as an ACL user ({@link io.github.relock.tck.fixtures.AclUser}),
     * made as the application would make it: chapter 28 checks what the driver does when Redis
     * refuses that user a channel. The default answers null, and those rules are skipped, saying
     * so; a driver's kit overrides it when its client can log in with a user name and password.
     *
     * @param topology where to connect: {@link #topology()}
     * @param user the user's name
     * @param password the user's password
     * @return a new native client, or null when this kit cannot make one
     */
    protected Object newNativeClient(RedisTopology topology, String user, String password) {
        return null;
    }

    /**
     * Takes, as the application would, every connection {@code nativeClient}'s pool can lend to
     * the node serving {@code key}, and keeps them until the returned handle is closed, which gives
     * them back. Chapter 28 checks that the driver and the engine stay safe while the application
     * has exhausted its own pool (normal under load, or with blocking commands). The default
     * answers null: the rules that need it are then skipped, saying so. A kit whose client holds
     * no pool (one multiplexed connection, as Lettuce's) leaves it so. It must not block: it takes
     * the connections that are free, up to the pool's maximum.
     *
     * @param nativeClient a client from {@link #nativeClient()} or {@link #newNativeClient(RedisTopology, String, String)}
     * @param key a key; on a cluster, the pool of the master serving it
     * @return a handle that gives the connections back when closed, or null when this kit's
     *     client has no pool it can exhaust
     */
    protected AutoCloseable exhaustPool(Object nativeClient, String key) {
        return null;
    }

    /**
     * Stops {@code nativeClient} and starts it again, as the application's container does with a
     * client that has a life cycle of its own: a Spring connection factory on a context restart, a
     * Spring Cloud refresh or a CRaC checkpoint ({@code stop()}, then {@code start()}), which drops
     * every connection the client had and builds its transport anew. Chapter 28 checks that the
     * driver's executor, made before the restart, still serves scripts and pub/sub after it. The
     * default does nothing and answers false: the rules that need it are then skipped, saying so.
     * A kit whose client has no such notion (a Jedis pool, a Lettuce client, which cannot start
     * again once shut down) leaves it so.
     *
     * @param nativeClient a client from {@link #nativeClient()}
     * @return whether the client was stopped and started again
     */
    protected boolean restartNativeClient(Object nativeClient) {
        return false;
    }

    /**
     * A native client whose connections, pub/sub ones included, all go through {@code proxy},
     * made as the application would make it: chapter 28 makes the proxy drop the bytes of the
     * client's pub/sub connections without a reset (a NAT that forgot an idle flow) and checks
     * that the driver notices and reopens them. The default makes one with
     * {@link #newNativeClient(RedisServer)} for {@link BlackHoleProxy#server()}; a kit whose client
     * cannot be pointed at another address answers null, and those rules are skipped, saying so.
     * The rules run only when {@link #topology()} is one server (a cluster's or Sentinel's nodes
     * announce their own addresses, which bypass a proxy).
     *
     * @param proxy the proxy in front of {@link #server()}
     * @return a new native client, closed by the caller, or null when this kit cannot make one
     */
    protected Object newNativeClient(BlackHoleProxy proxy) {
        return newNativeClient(proxy.server());
    }

    /**
     * @return a native client of {@link #topology()}, closed after the test
     */
    public Object nativeClient() {
        Object c = newNativeClient(topology());
        resources.add(() -> closeNativeClient(c));
        return c;
    }

    /**
     * @return an executor from the provider over a fresh native client; both closed after the test
     */
    public CommandExecutor newExecutor() {
        Object c = nativeClient();
        CommandExecutor e = provider().create(c, new DriverOptions(Duration.ofSeconds(5), "relock-tck"));
        resources.add(e);
        return e;
    }

    /**
     * @param options lock options
     * @return a lock client over a fresh native client; both closed after the test
     */
    public LockClient newLockClient(LockOptions options) {
        Object c = newNativeClient(topology());
        resources.add(() -> closeNativeClient(c));
        LockClient client = RedisLocks.create(provider(), c, options);
        resources.add(client);
        return client;
    }

    /**
     * @param server the server to use (e.g. a private one a test stops or restarts)
     * @param options lock options
     * @return a lock client over a fresh native client of that server; both closed after the test
     */
    public LockClient newLockClient(RedisServer server, LockOptions options) {
        Object c = newNativeClient(server);
        resources.add(() -> closeNativeClient(c));
        LockClient client = RedisLocks.create(provider(), c, options);
        resources.add(client);
        return client;
    }

    /**
     * @param topology a deployment of the test's own (e.g. one the failover chapter breaks)
     * @param options lock options
     * @return a lock client over a fresh native client for it ({@link #newNativeClient(RedisTopology)});
     *     both closed after the test
     */
    public LockClient newLockClient(RedisTopology topology, LockOptions options) {
        Object c = newNativeClient(topology);
        resources.add(() -> closeNativeClient(c));
        LockClient client = RedisLocks.create(provider(), c, options);
        resources.add(client);
        return client;
    }

    /**
     * @param options lock options
     * @param faults what the wrapped driver injects ({@link FaultInjectingDriver})
     * @return a lock client over the driver under test wrapped in a {@link FaultInjectingDriver};
     *     closed after the test
     */
    public LockClient newFaultyLockClient(LockOptions options, Faults faults) {
        Object c = newNativeClient(topology());
        resources.add(() -> closeNativeClient(c));
        LockClient client = RedisLocks.create(new FaultInjectingDriver(provider(), faults), c, options);
        resources.add(client);
        return client;
    }

    /**
     * Registers something to close after the test (in reverse order of registration).
     *
     * @param resource to close
     * @param <T> its type
     * @return the resource
     */
    public <T extends AutoCloseable> T closeAfterTest(T resource) {
        resources.add(resource);
        return resource;
    }

    private boolean checkThreads;

    /** Asks the kit to check, after closing this test's resources, that no relock thread is left. */
    public void checkThreadsAfterTest() {
        checkThreads = true;
    }

    @AfterEach
    void closeResources() throws Exception {
        Exception first = null;
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        resources.clear();
        if (first != null) {
            throw first;
        }
        if (checkThreads) {
            Await.until(Duration.ofSeconds(10), () -> relockThreads().isEmpty(),
                    () -> "relock threads still alive after every client was closed: " + relockThreads());
        }
    }

    /**
     * @return the kit class a driver wrote: this object's class, or, for a kit nested in another
     *     (as {@link RelockTck} nests the engine spec's chapters), the enclosing kit's: reports
     *     name it, and a child JVM ({@link ChildJvm}) makes a kit of it
     */
    protected Class<? extends DriverKit> kitClass() {
        return getClass();
    }

    /** @return the simple name of {@link #kitClass()}, for reports */
    final String kitName() {
        return kitClass().getSimpleName();
    }

    /** @return names of live threads whose name starts with {@code relock-} */
    public static List<String> relockThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("relock-") && !n.startsWith("relock-redis")).sorted().toList();
    }
}
