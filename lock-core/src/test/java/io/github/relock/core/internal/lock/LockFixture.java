package io.github.relock.core.internal.lock;

import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockOptions;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.observe.LockEvents;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.protocol.FairProtocol;
import io.github.relock.core.internal.protocol.ProtocolContext;
import io.github.relock.core.internal.protocol.ReentrantProtocol;
import io.github.relock.core.internal.run.ScriptRunner;
import io.github.relock.core.internal.testing.DirectExecutorService;
import io.github.relock.core.internal.testing.FakeExecutor;
import io.github.relock.core.internal.testing.RecordingListener;
import io.github.relock.core.internal.util.Args;
import io.github.relock.core.internal.wait.Channel;
import io.github.relock.core.internal.wait.Handoff;
import io.github.relock.core.internal.wait.Waiters;
import io.github.relock.spi.Capability;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * One client's engine assembled from the real parts (hold registry, waiters, hand-off lines, events,
 * script runner) over a {@link FakeExecutor}, with a real timer the test closes. Lost holds are
 * reported at once, on the reporting thread.
 *
 * <p>Thread-safety: not thread-safe; confined to the test's thread.
 */
final class LockFixture implements AutoCloseable {
    static final String CLIENT = "c1";
    static final long WATCHDOG_MS = LockOptions.DEFAULT_LOCK_WATCHDOG_TIMEOUT.toMillis();

    final FakeExecutor redis = new FakeExecutor();
    final RecordingListener listener = new RecordingListener();
    final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
    final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
    final HoldRegistry holds = new HoldRegistry(WATCHDOG_MS, lost::add, Runnable::run);
    final Handoff handoff = new Handoff(LockOptions.DEFAULT_LOCAL_HANDOFF_MAX_CONSECUTIVE,
            LockOptions.DEFAULT_LOCAL_HANDOFF_MAX_RUN.toNanos());
    final Waiters waiters = new Waiters(redis, false);
    final ProtocolContext protocols = new ProtocolContext("PUBLISH", 300_000, 1, 128, 0);
    final ClientServices services;

    LockFixture() {
        this(0);
    }

    /** @param replicasToAck replicas each lock write must reach (0: replica sync off) */
    LockFixture(int replicasToAck) {
        if (replicasToAck > 0) {
            redis.capabilities(Capability.REPLICA_WAIT);
        }
        ScriptRunner runner = new ScriptRunner(redis, replicasToAck, 250,
                replicasToAck > 0 ? new DirectExecutorService() : null, CLIENT);
        services = new ClientServices(CLIENT, LockOptions.defaults(), runner, holds, waiters, handoff,
                new LockEvents(listener), protocols, timer);
    }

    RedisLock reentrant(String name) {
        return new RedisLock(services, new ReentrantProtocol(protocols, name, ReentrantProtocol.Variant.REENTRANT));
    }

    RedisLock fair(String name) {
        return new RedisLock(services, new FairProtocol(protocols, name, true));
    }

    /** Registers one watchdog acquisition of {@code lock} by {@code ownerId}, as a landed acquire would. */
    Hold acquired(RedisLock lock, long ownerId) {
        return holds.register(lock.name, lock.field(ownerId), ownerId, lock.name, Args.TTL_WATCHDOG, System.nanoTime(),
                Acquire.NO_TOKEN, lock.protocol.timeoutKeyPrefix());
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    // ---------------------------------------------------------------- the waiter's side of Handoff
    // Handoff.post/arm/abandon, the offer's state and Waiters.join are package-private in `wait`; the
    // test reaches them by reflection (the tests run on the class path) rather than through a whole wait.

    /** Posts and arms an offer of a waiter of {@code lock}, as a wait does before parking. */
    Handoff.Offer armedOffer(RedisLock lock, long ownerId, Runnable wake) {
        String line = Handoff.line(lock.protocol.handoffFamily(), lock.name);
        Handoff.Offer offer = (Handoff.Offer) call("post", new Class<?>[] {String.class, long.class, String.class,
                long.class, Runnable.class}, line, ownerId, lock.field(ownerId), Args.TTL_WATCHDOG, wake);
        call("arm", new Class<?>[] {Handoff.Offer.class}, offer);
        return offer;
    }

    /** Joins {@code channel} as a waiter does after a failed attempt (Waiters.join is package-private too). */
    Channel joined(String channel) {
        try {
            Method m = Waiters.class.getDeclaredMethod("join", String.class);
            m.setAccessible(true);
            return (Channel) m.invoke(waiters, channel);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /** The waiter gives up on its claimed offer and waits on (a transfer landing later is its to take). */
    boolean abandon(Handoff.Offer offer) {
        return (Boolean) call("abandon", new Class<?>[] {Handoff.Offer.class}, offer);
    }

    /** The waiter leaves while its offer is claimed (a transfer landing later is given back by its releaser). */
    boolean leaveClaimed(Handoff.Offer offer) {
        return (Boolean) call("leaveClaimed", new Class<?>[] {Handoff.Offer.class}, offer);
    }

    static boolean resolve(Handoff.Offer offer) {
        try {
            Field f = Handoff.Offer.class.getDeclaredField("resolve");
            f.setAccessible(true);
            return f.getBoolean(offer);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /** @return the offer's state: 0 armed, 1 busy, 2 claimed, 3 granted, 4 gone, 5 abandoned, 6 landed, 7 taken (Handoff's) */
    static int state(Handoff.Offer offer) {
        try {
            Method m = Handoff.Offer.class.getDeclaredMethod("state");
            m.setAccessible(true);
            return (Integer) m.invoke(offer);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private Object call(String method, Class<?>[] types, Object... args) {
        try {
            Method m = Handoff.class.getDeclaredMethod(method, types);
            m.setAccessible(true);
            return m.invoke(handoff, args);
        } catch (InvocationTargetException e) {
            throw new AssertionError(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
