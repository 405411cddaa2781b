package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.api.ReadWriteDistributedLock;
import io.github.relock.tck.fixtures.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 21: liveness. No waiter sleeps while the lock is free. Each rule soaks one or more lock
 * types with threads (and asynchronous callers) of one client and of two clients, once with local
 * hand-off on (the default) and once with it off, while a {@link LivenessMonitor} watches Redis:
 * the rule fails if a lock is free for longer than {@link #BOUND} while a caller is inside an
 * acquire call, a fair queue is not empty, or a subscriber listens on the lock's channel. Every
 * worker must also get the lock at least once, and no two exclusive holders may overlap.
 *
 * <p>The default build soaks each case for {@link #SOAK} ({@code -Drelock.tck.liveness.soakMs},
 * default 500, and 1000 with {@code -Drelock.tck.longLoops=true}), and on until every worker of
 * the case got the lock once; the {@code liveness-soak} profile runs them for 30 s each. The bound
 * is {@code -Drelock.tck.liveness.boundMs} (default 500 ms).
 *
 * <p>When a rule fails, its message names the lock, how long it sat free, who waited, and the top
 * of each waiting thread's stack: look at how that waiter is woken (the pub/sub message of the
 * release, a local hand-off, the TTL bound of its park) and at which of those it missed.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("liveness")
@RuleStrength(RuleStrength.Strength.REQUIRED)
public abstract class LivenessChapter extends TckChapter {
    /** The longest a lock may sit free while someone waits for it. */
    public static final Duration BOUND = Duration.ofMillis(Long.getLong("relock.tck.liveness.boundMs", 500));
    /** How long each case of a rule is soaked, at least. */
    public static final Duration SOAK = Duration.ofMillis(Long.getLong("relock.tck.liveness.soakMs",
            longLoops() ? 1000 : 500));
    /** After the soak, how long a worker may still take to leave its acquire call. */
    private static final Duration GRACE = Duration.ofSeconds(5);

    /** @param kit the enclosing kit */
    protected LivenessChapter(DriverKit kit) {
        super(kit);
    }

    // ------------------------------------------------------------------ the soak harness

    /** Counts exclusive holders inside a lock: entering while another is inside is an overlap. */
    static final class Exclusion {
        final AtomicInteger writers = new AtomicInteger();
        final AtomicInteger readers = new AtomicInteger();
        final List<String> overlaps = new CopyOnWriteArrayList<>();

        void enter(boolean shared, String who) {
            if (shared) {
                readers.incrementAndGet();
                if (writers.get() != 0) {
                    overlaps.add(who + " read while a writer held the lock");
                }
            } else if (writers.incrementAndGet() != 1 || readers.get() != 0) {
                overlaps.add(who + " entered while another holder was inside");
            }
        }

        void exit(boolean shared) {
            (shared ? readers : writers).decrementAndGet();
        }
    }

    /** One soak: workers looping on locks while the monitor watches. */
    final class Soak {
        final LivenessMonitor monitor = new LivenessMonitor(kit.topology(), kit.livenessBound());
        final List<Thread> threads = new ArrayList<>();
        final List<Runnable> asyncStarts = new ArrayList<>();
        final List<CompletableFuture<Void>> asyncDone = new ArrayList<>();
        final List<String> failures = new CopyOnWriteArrayList<>();
        final List<AtomicInteger> perWorker = new ArrayList<>();
        final List<String> workerNames = new ArrayList<>();
        volatile boolean stop;

        /** Watches a lock of one key: its hash, and its channel's subscribers. */
        LivenessMonitor.Watched watch(String name, String channel) {
            return monitor.watch(name, List.of(name), null, channel);
        }

        /** Watches a fair lock: its hash, its queue, and (no common channel) no channel. */
        LivenessMonitor.Watched watchFair(String name) {
            return monitor.watch(name, List.of(name), prefixed("redisson_lock_queue", name), null);
        }

        /**
         * A thread looping {@code lock.lockInterruptibly(); unlock()}.
         *
         * @param shared whether its holds are shared (read locks)
         */
        void thread(String name, LivenessMonitor.Watched w, Lock lock, Exclusion ex, boolean shared) {
            AtomicInteger grants = worker(name);
            Thread t = new Thread(() -> {
                while (!stop) {
                    w.enter();
                    try {
                        lock.lockInterruptibly();
                    } catch (InterruptedException e) {
                        w.exit(false);
                        return;
                    } catch (RuntimeException e) {
                        w.exit(false);
                        failures.add(name + ": " + e);
                        return;
                    }
                    w.exit(true);
                    grants.incrementAndGet();
                    ex.enter(shared, name);
                    ex.exit(shared);
                    try {
                        lock.unlock();
                    } catch (RuntimeException e) {
                        failures.add(name + " unlock: " + e);
                        return;
                    }
                }
            }, name);
            t.setDaemon(true);
            threads.add(t);
        }

        /**
         * An asynchronous caller looping {@code lockAsync(owner)} then {@code unlockAsync(owner)}:
         * no thread of its own waits.
         */
        void async(String name, LivenessMonitor.Watched w, DistributedLock lock, long owner, Exclusion ex) {
            AtomicInteger grants = worker(name);
            CompletableFuture<Void> done = new CompletableFuture<>();
            asyncDone.add(done);
            asyncStarts.add(() -> loopAsync(name, w, lock, owner, ex, grants, done));
        }

        private void loopAsync(String name, LivenessMonitor.Watched w, DistributedLock lock, long owner, Exclusion ex,
                               AtomicInteger grants, CompletableFuture<Void> done) {
            if (stop) {
                done.complete(null);
                return;
            }
            w.enterAsync();
            lock.lockAsync(owner).whenComplete((v, t) -> {
                w.exitAsync(t == null);
                if (t != null) {
                    failures.add(name + ": " + t);
                    done.complete(null);
                    return;
                }
                grants.incrementAndGet();
                ex.enter(false, name);
                ex.exit(false);
                lock.unlockAsync(owner).whenComplete((u, e) -> {
                    if (e != null) {
                        failures.add(name + " unlock: " + e);
                        done.complete(null);
                    } else {
                        loopAsync(name, w, lock, owner, ex, grants, done);
                    }
                });
            });
        }

        private AtomicInteger worker(String name) {
            AtomicInteger grants = new AtomicInteger();
            perWorker.add(grants);
            workerNames.add(name);
            return grants;
        }

        /** Runs every worker for {@code length}, then checks the rule. */
        void run(Duration length, Exclusion... exclusions) throws Exception {
            threads.forEach(Thread::start);
            asyncStarts.forEach(Runnable::run);
            // A client's first waits open its pub/sub connection, and a waiter whose first attempt
            // found the lock held waits for that subscription before it attempts again: on a loaded
            // machine a connect (a Sentinel lookup, a cluster's topology) outlasts the bound with the
            // lock already free (seen: 604 ms, rule 21.3, Spring Data over Lettuce). That is the
            // cost of a cold client, not a lost wake-up, so the monitor watches from the moment
            // every worker has had the lock once (or the grace ran out, and the rule fails below).
            long warmBy = System.nanoTime() + GRACE.toNanos();
            while (failures.isEmpty() && perWorker.stream().anyMatch(g -> g.get() == 0)
                    && System.nanoTime() - warmBy < 0) {
                Thread.sleep(10);
            }
            monitor.start();
            try {
                Thread.sleep(length.toMillis()); // the soak itself: the workers run meanwhile
                // and on until each worker got the lock once: a short soak on a loaded machine
                // must not fail a worker that was merely slow to start (the monitor still watches),
                // unless the rule already failed
                long everyoneBy = System.nanoTime() + GRACE.toNanos();
                while (failures.isEmpty() && !monitor.violationSeen() && perWorker.stream().anyMatch(g -> g.get() == 0)
                        && System.nanoTime() - everyoneBy < 0) {
                    Thread.sleep(10);
                }
                stop = true;
                long deadline = System.nanoTime() + GRACE.toNanos();
                for (Thread t : threads) {
                    t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                    if (t.isAlive()) {
                        failures.add(t.getName() + " was still waiting " + GRACE.toMillis() + " ms after the soak ended, at "
                                + LivenessMonitor.topOf(t));
                        t.interrupt();
                        t.join(TimeUnit.SECONDS.toMillis(10));
                    }
                }
                for (int i = 0; i < asyncDone.size(); i++) {
                    try {
                        asyncDone.get(i).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    } catch (java.util.concurrent.TimeoutException e) {
                        failures.add("an asynchronous caller was still waiting " + GRACE.toMillis()
                                + " ms after the soak ended");
                    }
                }
            } finally {
                stop = true;
                monitor.stop();
            }
            List<String> problems = new ArrayList<>(failures);
            problems.addAll(monitor.violations());
            for (Exclusion ex : exclusions) {
                problems.addAll(ex.overlaps);
            }
            for (int i = 0; i < perWorker.size(); i++) {
                if (perWorker.get(i).get() == 0) {
                    problems.add(workerNames.get(i) + " never got the lock in " + length.toMillis() + " ms and "
                            + GRACE.toMillis() + " ms more");
                }
            }
            assertEquals(List.of(), problems, "liveness (bound " + kit.livenessBound().toMillis() + " ms)");
        }
    }

    /** @return options with local hand-off on (the default) or off */
    static LockOptions options(boolean handoff) {
        return handoff ? LockOptions.defaults() : LockOptions.builder().noLocalHandoff().build();
    }

    /** @return "on" or "off", for names */
    static String mode(boolean handoff) {
        return handoff ? "on" : "off";
    }

    static String channel(String name) {
        return prefixed("redisson_lock__channel", name);
    }

    /** Redisson's prefixName: {@code prefix:{name}}, or {@code prefix:name} when the name has a hash tag. */
    static String prefixed(String prefix, String name) {
        return name.indexOf('{') >= 0 ? prefix + ":" + name : prefix + ":{" + name + "}";
    }

    // ------------------------------------------------------------------ rules

    /**
     * Rule 21.1: a reentrant lock contended by four threads of one client, then by two threads of
     * each of two clients, never sits free while one of them waits, with hand-off on and off.
     * When it fails: a reentrant waiter slept while the lock was free. With hand-off off, look at
     * whether the release's message reached its channel's listener; with it on, at the hand-off it
     * missed.
     */
    @Test
    void rule21_1_reentrantLock_oneAndTwoClients_neverFreeWhileWaitedFor() throws Exception {
        for (boolean handoff : new boolean[] {true, false}) {
            String name = "tck:live:reentrant:" + mode(handoff);
            LockClient a = kit.newLockClient(options(handoff));
            LockClient b = kit.newLockClient(options(handoff));
            Soak soak = new Soak();
            Exclusion ex = new Exclusion();
            LivenessMonitor.Watched w = soak.watch(name, channel(name));
            for (int i = 0; i < 4; i++) {
                soak.thread("a" + i + "-" + mode(handoff), w, a.getLock(name), ex, false);
            }
            soak.run(SOAK, ex);
            Soak two = new Soak();
            LivenessMonitor.Watched w2 = two.watch(name, channel(name));
            for (int i = 0; i < 2; i++) {
                two.thread("a" + i + "-" + mode(handoff), w2, a.getLock(name), ex, false);
                two.thread("b" + i + "-" + mode(handoff), w2, b.getLock(name), ex, false);
            }
            two.run(SOAK, ex);
        }
    }

    /**
     * Rule 21.2: a fair lock looped by four threads of one client, in rounds on a fresh name each
     * round and in rounds that reuse one name, then by two clients, never sits free while its
     * queue holds a waiter, with hand-off on and off. (The stall this rule was written for: a
     * queue head that missed the release meant for it slept out the holder's whole lease.)
     * When it fails: a fair queue head slept while the lock was free: it is woken on its own
     * channel by the release meant for it, and a head that missed that message must attempt again
     * by its deadline.
     */
    @Test
    void rule21_2_fairLock_roundsFreshAndReusedNames_neverFreeWhileQueued() throws Exception {
        for (boolean handoff : new boolean[] {true, false}) {
            LockClient a = kit.newLockClient(options(handoff));
            LockClient b = kit.newLockClient(options(handoff));
            Duration round = SOAK.dividedBy(2);
            for (int r = 0; r < 4; r++) {
                String name = "tck:live:fair:" + mode(handoff) + ":" + (r % 2 == 0 ? "round" + r : "reused");
                Soak soak = new Soak();
                Exclusion ex = new Exclusion();
                LivenessMonitor.Watched w = soak.watchFair(name);
                for (int i = 0; i < 4; i++) {
                    soak.thread("r" + r + "t" + i + "-" + mode(handoff), w, a.getFairLock(name), ex, false);
                }
                soak.run(round, ex);
            }
            String name = "tck:live:fair:" + mode(handoff) + ":two";
            Soak two = new Soak();
            Exclusion ex = new Exclusion();
            LivenessMonitor.Watched w = two.watchFair(name);
            for (int i = 0; i < 2; i++) {
                two.thread("a" + i + "-" + mode(handoff), w, a.getFairLock(name), ex, false);
                two.thread("b" + i + "-" + mode(handoff), w, b.getFairLock(name), ex, false);
            }
            two.run(SOAK, ex);
        }
    }

    /**
     * Rule 21.3: a read-write lock, one writer and two readers in each of two clients, never sits
     * free while a reader or writer waits, with hand-off on and off.
     * When it fails: a reader or writer slept on a free read-write lock: a write release publishes
     * "1" for every reader, and the last reader's release publishes for the writers; check the
     * read-write channel's listeners.
     */
    @Test
    void rule21_3_readWriteLock_readersAndWritersOfTwoClients_neverFreeWhileWaitedFor() throws Exception {
        for (boolean handoff : new boolean[] {true, false}) {
            String name = "tck:live:rw:" + mode(handoff);
            Soak soak = new Soak();
            Exclusion ex = new Exclusion();
            LivenessMonitor.Watched w = soak.watch(name, prefixed("redisson_rwlock", name));
            for (String c : List.of("a", "b")) {
                ReadWriteDistributedLock rw = kit.newLockClient(options(handoff)).getReadWriteLock(name);
                soak.thread(c + "-writer-" + mode(handoff), w, rw.writeLock(), ex, false);
                soak.thread(c + "-reader0-" + mode(handoff), w, rw.readLock(), ex, true);
                soak.thread(c + "-reader1-" + mode(handoff), w, rw.readLock(), ex, true);
            }
            soak.run(SOAK, ex);
        }
    }

    /**
     * Rule 21.4: the spin, fenced, non-reentrant and non-reentrant fair locks, two threads of each
     * of two clients on each, all soaked at once, never sit free while waited for, with hand-off
     * on and off. (A spin waiter polls: its back-off must stay below the bound.)
     * When it fails: a spin waiter's back-off must stay below the bound; a fenced or non-reentrant
     * waiter is woken as a reentrant one is (rule 21.1).
     */
    @Test
    void rule21_4_spinFencedNonReentrantLocks_neverFreeWhileWaitedFor() throws Exception {
        for (boolean handoff : new boolean[] {true, false}) {
            Soak soak = new Soak();
            List<Exclusion> exclusions = new ArrayList<>();
            LockClient a = kit.newLockClient(options(handoff));
            LockClient b = kit.newLockClient(options(handoff));
            for (String kind : List.of("spin", "fenced", "nonreentrant", "nonreentrantfair")) {
                String name = "tck:live:" + kind + ":" + mode(handoff);
                LivenessMonitor.Watched w = kind.equals("nonreentrantfair") ? soak.watchFair(name)
                        : soak.watch(name, kind.equals("spin") ? null : channel(name));
                Exclusion ex = new Exclusion();
                exclusions.add(ex);
                for (LockClient c : List.of(a, b)) {
                    String who = (c == a ? "a-" : "b-") + kind + "-" + mode(handoff);
                    for (int i = 0; i < 2; i++) {
                        soak.thread(who + i, w, lockOf(c, kind, name), ex, false);
                    }
                }
            }
            soak.run(SOAK, exclusions.toArray(Exclusion[]::new));
            redis("DEL", prefixed("redisson_lock_token", "tck:live:fenced:" + mode(handoff))); // the counter outlives the lock
        }
    }

    private static DistributedLock lockOf(LockClient c, String kind, String name) {
        return switch (kind) {
            case "spin" -> c.getSpinLock(name);
            case "fenced" -> c.getFencedLock(name);
            case "nonreentrant" -> c.getNonReentrantLock(name);
            case "nonreentrantfair" -> c.getNonReentrantFairLock(name);
            case "fair" -> c.getFairLock(name);
            default -> c.getLock(name);
        };
    }

    /**
     * Rule 21.5: asynchronous waiters ({@code lockAsync(owner)}, no thread of their own) beside a
     * blocked thread, in each of two clients, on a reentrant and on a fair lock, never leave the
     * lock free while they wait, with hand-off on and off.
     * When it fails: an async waiter must be woken by the release's message or a hand-off as a
     * blocked thread is: look at the async wait's wake-up.
     */
    @Test
    void rule21_5_asyncWaiters_reentrantAndFair_neverFreeWhileWaitedFor() throws Exception {
        for (boolean handoff : new boolean[] {true, false}) {
            Soak soak = new Soak();
            List<Exclusion> exclusions = new ArrayList<>();
            List<LockClient> clients = List.of(kit.newLockClient(options(handoff)), kit.newLockClient(options(handoff)));
            for (String kind : List.of("reentrant", "fair")) {
                String name = "tck:live:async:" + kind + ":" + mode(handoff);
                LivenessMonitor.Watched w = kind.equals("fair") ? soak.watchFair(name) : soak.watch(name, channel(name));
                Exclusion ex = new Exclusion();
                exclusions.add(ex);
                for (int c = 0; c < clients.size(); c++) {
                    DistributedLock lock = lockOf(clients.get(c), kind, name);
                    String who = "c" + c + "-" + kind + "-" + mode(handoff);
                    soak.async(who + "-async1", w, lock, 1_000_001L, ex);
                    soak.async(who + "-async2", w, lock, 1_000_002L, ex);
                    soak.thread(who + "-thread", w, lock, ex, false);
                }
            }
            soak.run(SOAK, exclusions.toArray(Exclusion[]::new));
        }
    }

    /**
     * Rule 21.6: multi-lock waiters over two locks, beside threads taking one of the two alone, in
     * two clients, never leave both locks free while a multi-lock waiter waits, with hand-off on
     * and off.
     * When it fails: a multi-lock waiter must listen on every member it still waits for and attempt
     * again when any of them is released.
     */
    @Test
    void rule21_6_multiLockWaiters_neverFreeWhileWaitedFor() throws Exception {
        for (boolean handoff : new boolean[] {true, false}) {
            String first = "{tck:live:multi}:1:" + mode(handoff);
            String second = "{tck:live:multi}:2:" + mode(handoff);
            Soak soak = new Soak();
            LivenessMonitor.Watched both = soak.monitor.watch("multi(" + first + ", " + second + ")",
                    List.of(first, second), null, null);
            LivenessMonitor.Watched one = soak.watch(first, channel(first));
            Exclusion ex = new Exclusion();
            for (String c : List.of("a", "b")) {
                LockClient client = kit.newLockClient(options(handoff));
                DistributedLock multi = client.getMultiLock(client.getLock(first), client.getLock(second));
                soak.thread(c + "-multi0-" + mode(handoff), both, multi, ex, false);
                soak.thread(c + "-multi1-" + mode(handoff), both, multi, ex, false);
                soak.thread(c + "-single-" + mode(handoff), one, client.getLock(first), ex, false);
            }
            soak.run(SOAK, ex);
        }
    }

    /**
     * Rule 21.7: callers whose timed waits run out and leave ({@code tryLock} with waits of 0 to 3
     * ms) beside callers of {@code lock()}, on a reentrant and on a fair lock: a leaving waiter
     * passes on whatever wake-up it took and (fair) leaves the queue, so the lock never sits free
     * while a {@code lock()} caller waits, with hand-off on and off.
     * When it fails: a timed waiter that leaves must pass on a wake-up it had taken and (fair)
     * leave the queue, so that the {@code lock()} callers behind it are woken.
     */
    @Test
    void rule21_7_timedWaitersLeaving_neverStrandLockCallers() throws Exception {
        for (boolean handoff : new boolean[] {true, false}) {
            Soak soak = new Soak();
            List<Exclusion> exclusions = new ArrayList<>();
            LockClient a = kit.newLockClient(options(handoff));
            LockClient b = kit.newLockClient(options(handoff));
            for (String kind : List.of("reentrant", "fair")) {
                String name = "tck:live:leaving:" + kind + ":" + mode(handoff);
                LivenessMonitor.Watched w = kind.equals("fair") ? soak.watchFair(name) : soak.watch(name, channel(name));
                Exclusion ex = new Exclusion();
                exclusions.add(ex);
                for (LockClient c : List.of(a, b)) {
                    String who = (c == a ? "a-" : "b-") + kind + "-" + mode(handoff);
                    soak.thread(who + "-lock", w, lockOf(c, kind, name), ex, false);
                    soak.thread(who + "-try", w, new ShortTryLock(lockOf(c, kind, name)), ex, false);
                }
            }
            soak.run(SOAK, exclusions.toArray(Exclusion[]::new));
        }
    }

    /**
     * A lock whose {@code lockInterruptibly} is {@code tryLock} with a wait of 0 to 3 ms, repeated
     * until it succeeds: each failed try is a waiter that leaves.
     */
    private record ShortTryLock(DistributedLock target) implements Lock {
        @Override
        public void lock() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            while (!target.tryLock(java.util.concurrent.ThreadLocalRandom.current().nextInt(4), TimeUnit.MILLISECONDS)) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        }

        @Override
        public boolean tryLock() {
            return target.tryLock();
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            return target.tryLock(time, unit);
        }

        @Override
        public void unlock() {
            target.unlock();
        }

        @Override
        public java.util.concurrent.locks.Condition newCondition() {
            throw new UnsupportedOperationException();
        }
    }

    /**
     * Rule 21.8: a sanity rule for the harness itself: a lock held throughout is never "free while
     * waited for", and a lock left free while someone waits is a violation.
     * When it fails: the harness is wrong, not the engine: the monitor must tell a held lock from a
     * free one while a caller waits (look at how it reads the lock's key and the waiters).
     */
    @RuleStrength(value = RuleStrength.Strength.OPTIONAL, because = "checks the kit's own monitor")
    @Test
    void rule21_8_monitor_heldLock_isNotAViolation_butAFreeWaitedLockIs() throws Exception {
        LockClient a = client();
        String name = "tck:live:monitor";
        LivenessMonitor monitor = new LivenessMonitor(kit.topology(), Duration.ofMillis(100));
        LivenessMonitor.Watched w = monitor.watch(name, List.of(name), null, null);
        DistributedLock lock = a.getLock(name);
        lock.lock();
        monitor.start();
        w.enter();
        Await.holdsFor(Duration.ofMillis(300), () -> w.freeWhileWaitedNowMs() == 0,
                () -> "a held lock was seen free");
        lock.unlock();
        // until the monitor itself counts the stretch a violation: on a loaded machine its allowance
        // for scheduling delays can make a fixed length (200 ms) fall short of one
        Await.until(Duration.ofSeconds(20), w::violatingNow,
                () -> "the monitor never saw the free lock waited for (free for " + w.freeWhileWaitedNowMs() + " ms)");
        w.exit(false);
        monitor.stop();
        List<String> v = monitor.violations();
        assertEquals(1, v.size(), () -> "violations: " + v);
        assertTrue(v.get(0).contains(name), v.get(0));
    }
}
