package io.github.relock.core.internal.wait;

import io.github.relock.core.internal.protocol.FairProtocol;
import io.github.relock.core.internal.protocol.ProtocolContext;
import io.github.relock.core.internal.protocol.ReadWriteProtocol;
import io.github.relock.core.internal.protocol.ReentrantProtocol;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** The parts every wait test builds: a client's channels and hand-off lines over fakes. */
final class WaitFixture {
    static final String CLIENT = "client";
    static final ProtocolContext PROTOCOLS = new ProtocolContext("PUBLISH", 300_000, 1, 8, 0);

    final FakePubSub pubsub = new FakePubSub();
    final Waiters waiters = new Waiters(pubsub, false);
    final Handoff handoff;
    final ManualTimer timer = new ManualTimer();
    final AtomicBoolean closed = new AtomicBoolean();
    final WaitContext ctx;

    WaitFixture() {
        this(true, 2_000, 1_000);
    }

    WaitFixture(boolean handoffOn, long subscriptionTimeoutMs, long commandTimeoutMs) {
        this.handoff = new Handoff(handoffOn ? 16 : 0, TimeUnit.MILLISECONDS.toNanos(20));
        this.ctx = new WaitContext(waiters, handoff, timer, closed::get, CLIENT,
                TimeUnit.MILLISECONDS.toNanos(subscriptionTimeoutMs), TimeUnit.MILLISECONDS.toNanos(commandTimeoutMs),
                30_000);
    }

    FakeLock reentrant(String name) {
        return new FakeLock(new ReentrantProtocol(PROTOCOLS, name, ReentrantProtocol.Variant.REENTRANT), CLIENT);
    }

    FakeLock spin(String name) {
        return new FakeLock(new ReentrantProtocol(PROTOCOLS, name, ReentrantProtocol.Variant.SPIN), CLIENT);
    }

    FakeLock fair(String name) {
        return new FakeLock(new FairProtocol(PROTOCOLS, name, true), CLIENT);
    }

    FakeLock write(String name) {
        return new FakeLock(ReadWriteProtocol.write(PROTOCOLS, name), CLIENT);
    }

    /** Publishes a release's "0" on the lock's channel, as Redis would deliver it to this client. */
    void publish(FakeLock lock, String message) {
        waiters.onMessage(lock.protocol().waitChannel(lock.field(0)), message);
    }

    /** @return the entry of the lock's channel, or null */
    Channel entry(FakeLock lock) {
        return waiters.entry(lock.protocol().waitChannel(lock.field(0)));
    }

    /** Runs {@code body} on a thread of its own. */
    static <T> CompletableFuture<T> onThread(String name, Callable<T> body) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(body.call());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return f;
    }

    /** Waits (at most 10 s) until {@code condition} holds. */
    static void await(BooleanSupplier condition, Supplier<String> what) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("not true within 10 s: " + what.get());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /** @return whether the entry of {@code lock} has {@code n} parked waiters (a fair lock: owner 1's channel) */
    boolean parked(FakeLock lock, int n) {
        Channel e = waiters.entry(lock.protocol().waitChannel(lock.field(1)));
        return e != null && e.parkedCount() == n;
    }
}
