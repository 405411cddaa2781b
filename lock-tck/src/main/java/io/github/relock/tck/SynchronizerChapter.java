package io.github.relock.tck;

import io.github.relock.api.LockClient;
import io.github.relock.tck.fixtures.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Base of the synchronizer chapters (24 semaphore, 25 permit-expirable semaphore, 26 count-down
 * latch, and their Redisson interop): the hygiene of {@link TckChapter} plus a few helpers: work on
 * a background thread, waiting until a client has waiters, and counting how many callers hold
 * permits at once.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
public abstract class SynchronizerChapter extends TckChapter {
    /** How long a rule waits for something that should happen within a second or two. */
    protected static final Duration SOON = Duration.ofSeconds(20);

    /** @param kit the enclosing kit */
    protected SynchronizerChapter(DriverKit kit) {
        super(kit);
    }

    /**
     * @param body what to run on a daemon thread of its own
     * @param <T> its result
     * @return its future
     */
    protected static <T> Future<T> background(Callable<T> body) {
        FutureTask<T> task = new FutureTask<>(body);
        Thread t = new Thread(task, "tck-sync-background");
        t.setDaemon(true);
        t.start();
        return task;
    }

    /** Waits until {@code client} has at least {@code n} calls waiting (joined on a channel). */
    protected static void awaitWaiting(LockClient client, int n) {
        Await.until(SOON, () -> client.stats().waiters() >= n,
                () -> "expected " + n + " waiting call(s), the client has " + client.stats());
    }

    /** Waits until none of {@code clients} has a waiting call or a channel left. */
    protected static void awaitIdle(LockClient... clients) {
        for (LockClient c : clients) {
            Await.until(SOON, () -> c.stats().waiters() == 0 && c.stats().subscriptions() == 0,
                    () -> "the client still waits or listens: " + c.stats());
        }
    }

    /**
     * @return whether the server takes {@code PEXPIRE}'s conditions (NX, XX, GT, LT: Redis 7.0+),
     *     which the conditional {@code expireIf…} forms need
     */
    protected boolean serverHasExpireConditions() {
        try {
            redis("PEXPIRE", "tck:expire-conditions-probe", "1000", "NX");
            return true;
        } catch (RuntimeException refused) {
            return false;
        }
    }

    /** @return the key's value as a long (0 when missing) */
    protected long longAt(String key) {
        Object v = redis("GET", key);
        return v == null ? 0 : Long.parseLong(String.valueOf(v));
    }

    /**
     * Counts permits held at once by the callers of a rule; holding more than the limit is an
     * overlap, recorded with who did it.
     *
     * <p>Thread-safety: safe for use by several threads.
     */
    protected static final class Holders {
        private final int limit;
        private final AtomicInteger inside = new AtomicInteger();
        private final AtomicInteger grants = new AtomicInteger();
        /** Every time the limit was exceeded. */
        public final List<String> overlaps = new CopyOnWriteArrayList<>();

        /** @param limit the permits that exist */
        public Holders(int limit) {
            this.limit = limit;
        }

        /** @param permits taken by {@code who} just now */
        public void enter(int permits, String who) {
            grants.incrementAndGet();
            int now = inside.addAndGet(permits);
            if (now > limit) {
                overlaps.add(who + " made " + now + " permits held at once, of " + limit);
            }
        }

        /** @param permits about to be given back */
        public void exit(int permits) {
            inside.addAndGet(-permits);
        }

        /** @return acquisitions counted */
        public int grants() {
            return grants.get();
        }
    }
}
