package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.tck.fixtures.Await;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

/**
 * Chapter 8: virtual threads. 1,000 virtual threads contend on 10 locks with JFR's
 * {@code jdk.VirtualThreadPinned} event recorded at threshold 0: mutual exclusion holds and no
 * virtual thread pins its carrier inside relock. Needs a JDK 21+ at run time (the kit is compiled
 * for 17 and reaches virtual threads reflectively); skipped, saying so, on older JDKs. The
 * drivers' builds run it on the JDK named by {@code RELOCK_VTHREAD_JAVA} (CI sets it); anywhere else,
 * run the test class on a JDK 21+: with Maven, Surefire's {@code -Djvm=<JDK 21+>/bin/java}.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@org.junit.jupiter.api.Tag("virtual-threads")
public abstract class VirtualThreadsKit extends DriverKit {

    /** Creates the kit (JUnit does this). */
    protected VirtualThreadsKit() {
    }

    /**
     * Rule 8.1: 1,000 virtual threads on 10 locks: exclusion holds and nothing pins.
     * When it fails: a pinning event names the frame that pinned the carrier: a {@code
     * synchronized} block or a native call inside relock or the driver on the virtual thread's
     * path; a broken exclusion points where rule 6.1 does.
     */
    @Test
    void rule8_1_virtualThreads_thousandOnTenLocks_exclusiveAndUnpinned() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21,
                "virtual threads need JDK 21+, this is " + Runtime.version() + "; run this class on a JDK 21+"
                        + " (Maven: -Djvm=<JDK 21+>/bin/java; relock's own build sets it from RELOCK_VTHREAD_JAVA)");
        server().call("FLUSHALL");
        checkThreadsAfterTest();
        // The rule is about exclusion and pinning, not about timeouts: on a loaded two-core machine
        // with JFR recording, a subscription can take seconds to be confirmed.
        LockClient client = newLockClient(LockOptions.builder()
                .subscriptionTimeout(Duration.ofSeconds(60))
                .commandTimeout(Duration.ofSeconds(60))
                .build());
        ThreadFactory virtual = virtualThreadFactory();
        int locks = 10;
        AtomicInteger[] inside = new AtomicInteger[locks];
        for (int i = 0; i < locks; i++) {
            inside[i] = new AtomicInteger();
        }
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        warmUp(client, virtual);
        Path jfr = Files.createTempFile("relock-vthreads", ".jfr");
        List<RecordedEvent> pinned = new ArrayList<>();
        try (Recording recording = new Recording()) {
            recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            recording.start();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 1000; t++) {
                int n = t % locks;
                DistributedLock lock = client.getLock("tck:vt:" + n);
                Thread thread = virtual.newThread(() -> {
                    lock.lock();
                    try {
                        if (inside[n].incrementAndGet() != 1) {
                            violations.incrementAndGet();
                        }
                        Thread.onSpinWait();
                        inside[n].decrementAndGet();
                    } finally {
                        lock.unlock();
                    }
                    done.incrementAndGet();
                });
                threads.add(thread);
                thread.start();
            }
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            for (Thread thread : threads) {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
            recording.stop();
            recording.dump(jfr);
        }
        for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
            if (e.getEventType().getName().equals("jdk.VirtualThreadPinned") && !classLoading(e)) {
                pinned.add(e);
            }
        }
        Files.deleteIfExists(jfr);
        assertEquals(1000, done.get(), "virtual threads that finished");
        assertEquals(0, violations.get(), "two holders inside one lock");
        assertEquals(0, pinned.size(), () -> "pinned virtual threads: " + describe(pinned));
        assertEquals(0L, server().call("DBSIZE"));
    }

    /**
     * Whether a pinning happened inside the JDK's loading of a class: a path the warm-up did not
     * take (a hand-off's settling, say, which only contention reaches) loads its classes on the
     * first virtual thread there, and the others wait on the class loader's lock, pinned, once per
     * class and JVM. As the warm-up's, this is one-time loading, not the steady state under test;
     * a pinning in relock's own code (a monitor it holds while waiting) has no class loader on top.
     */
    private static boolean classLoading(RecordedEvent e) {
        if (e.getStackTrace() == null) {
            return false;
        }
        for (jdk.jfr.consumer.RecordedFrame f : e.getStackTrace().getFrames()) {
            String type = f.getMethod().getType().getName();
            if (type.equals("java.lang.ClassLoader") || type.startsWith("jdk.internal.loader.")) {
                return true;
            }
            if (type.startsWith("io.github.relock.")) {
                return false; // relock's frame before any class loading: relock pinned it
            }
        }
        return false;
    }

    /** Each pinning event with its whole stack (JFR's toString cuts it at five frames). */
    private static String describe(List<RecordedEvent> pinned) {
        StringBuilder out = new StringBuilder();
        for (RecordedEvent e : pinned) {
            out.append('\n').append(e.getEventType().getName());
            if (e.hasField("pinnedReason")) {
                out.append(" (").append((Object) e.getValue("pinnedReason")).append(')');
            }
            if (e.hasField("blockingOperation")) {
                out.append(" during ").append((Object) e.getValue("blockingOperation"));
            }
            if (e.getStackTrace() != null) {
                e.getStackTrace().getFrames().forEach(f -> out.append("\n    at ")
                        .append(f.getMethod().getType().getName()).append('.').append(f.getMethod().getName())
                        .append(':').append(f.getLineNumber()));
            }
        }
        return out.toString();
    }

    /**
     * Runs every path once (uncontended, contended with subscribe and wake-up, async) on virtual
     * threads before recording, so that one-time class loading and static initialisation, which
     * pin by nature, are not counted against the steady state under test.
     */
    private static void warmUp(LockClient client, ThreadFactory virtual) throws Exception {
        DistributedLock lock = client.getLock("tck:vt:warm-up");
        lock.lock();
        Thread waiter = virtual.newThread(() -> {
            lock.lock();
            lock.unlock();
        });
        waiter.start();
        // parked for the lock itself, not still subscribing: the park path (and its blocker's class,
        // whose first initialization under 1000 contending virtual threads pinned them on the class's
        // init lock: JDK 25, "Freeze or preempt failed (2) during Contended monitor enter") is warm
        Await.until(Duration.ofSeconds(30), () -> java.util.concurrent.locks.LockSupport.getBlocker(waiter)
                instanceof io.github.relock.api.WaitingForLock, () -> "warm-up waiter never parked for the lock");
        lock.unlock();
        waiter.join(TimeUnit.SECONDS.toMillis(60));
        lock.tryLockAsync(0, -1, TimeUnit.MILLISECONDS, 7).thenCompose(ok -> lock.unlockAsync(7)).get(30, TimeUnit.SECONDS);
        lock.isLocked();
        lock.remainTimeToLive();
        growPools(client, virtual);
        parkOnSocketOnce(virtual);
    }

    /**
     * Runs 64 virtual threads at once over the same ten locks, so the native client's connection
     * pool grows to its working size now. A pool that opens a connection while recording pins in
     * the driver's own code (Jedis builds its connect-failure exception, whose native stack walk
     * pins, before it tries to connect), which is not the steady state under test.
     */
    private static void growPools(LockClient client, ThreadFactory virtual) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 64; t++) {
            DistributedLock lock = client.getLock("tck:vt:" + (t % 10));
            Thread thread = virtual.newThread(() -> {
                lock.lock();
                lock.unlock();
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(120));
        }
    }

    /**
     * Parks one virtual thread on a socket read, so the JDK initialises its I/O poller now. That
     * one-time class initialisation pins any other virtual thread that reads a socket meanwhile
     * ("Waited for initialization of sun.nio.ch.Poller by another thread"): a JDK event, not a
     * lock's, which the warm-up's reads do not always trigger because their replies are ready.
     */
    private static void parkOnSocketOnce(ThreadFactory virtual) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread reader = virtual.newThread(() -> {
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
                    s.setSoTimeout(30_000);
                    s.getInputStream().read();
                } catch (IOException ignored) {
                    // the peer closes: the read returns or fails, either way the poller ran
                }
            });
            reader.start();
            try (Socket peer = server.accept()) {
                Await.until(Duration.ofSeconds(30), () -> reader.getState() == Thread.State.WAITING
                        || reader.getState() == Thread.State.TIMED_WAITING, () -> "warm-up reader never parked");
                peer.getOutputStream().write(1);
            }
            reader.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    private static ThreadFactory virtualThreadFactory() throws ReflectiveOperationException {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        Class<?> builderType = Class.forName("java.lang.Thread$Builder");
        Method name = builderType.getMethod("name", String.class, long.class);
        builder = name.invoke(builder, "tck-vt-", 0L);
        return (ThreadFactory) builderType.getMethod("factory").invoke(builder);
    }
}
