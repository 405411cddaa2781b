package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.api.WaitingForLock;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 20: local hand-off ({@code LockOptions.localHandoff}, on by default). When the last
 * hold of a lock is released while a thread of the same client is blocked waiting for it, the
 * release script names that thread the owner in the same step: Redis never shows the lock free,
 * nothing is published, and the waiter wakes as the owner. Runs of hand-offs are bounded so that
 * other clients' waiters are not starved; the fair lock hands off only to its queue's head.
 * Hand-off does not apply on a node whose lock writes wait for replicas (replica acknowledgement,
 * on by default, waits on the Sentinel and cluster fixtures), so this chapter's clients turn it off
 * ({@code noReplicaSync()}).
 *
 * <p>The rules see a waiter "parked in the hand-off" by its park blocker, a
 * {@link WaitingForLock} with its hand-off offer armed; from then on the outcome of an unlock is
 * deterministic.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("local-handoff")
public abstract class LocalHandoffChapter extends TckChapter {

    /** @param kit the enclosing kit */
    protected LocalHandoffChapter(DriverKit kit) {
        super(kit);
    }

    /**
     * @return a client with default options but replica acknowledgement off: hand-off is off on a
     *     node whose lock writes wait for replicas (the default on the Sentinel and cluster
     *     fixtures), so this chapter's clients turn the wait off to show hand-off everywhere
     */
    @Override
    protected LockClient client() {
        return kit.newLockClient(LockOptions.builder().noReplicaSync().build());
    }

    /**
     * @return whether {@code t} is parked waiting for a hand-off: its park blocker is a
     *     {@link WaitingForLock} with its offer armed
     */
    static boolean parkedForHandoff(Thread t) {
        return LockSupport.getBlocker(t) instanceof WaitingForLock w && w.handoffOffered();
    }

    /** A thread that takes {@code lock}, records its id, holds until told, then unlocks. */
    private static final class Waiter implements AutoCloseable {
        final AtomicReference<Thread> thread = new AtomicReference<>();
        final CompletableFuture<Long> acquired = new CompletableFuture<>();
        final CompletableFuture<Void> release = new CompletableFuture<>();
        final CompletableFuture<Void> done = new CompletableFuture<>();
        /** Scripts the deployment had served just before this waiter started (rule 20.11). */
        long scriptsBefore;

        Waiter(java.util.concurrent.locks.Lock lock, String name) {
            Thread t = new Thread(() -> {
                try {
                    lock.lock();
                    try {
                        acquired.complete(Thread.currentThread().getId());
                        release.get(60, TimeUnit.SECONDS);
                    } finally {
                        lock.unlock();
                    }
                    done.complete(null);
                } catch (Throwable e) {
                    acquired.completeExceptionally(e);
                    done.completeExceptionally(e);
                }
            }, name);
            thread.set(t);
            t.setDaemon(true);
            t.start();
        }

        void awaitParked() {
            Await.until(Duration.ofSeconds(20), () -> parkedForHandoff(thread.get()),
                    () -> thread.get().getName() + " never parked for a hand-off; it is at "
                            + Arrays.toString(thread.get().getStackTrace()));
        }

        void finish() throws Exception {
            release.complete(null);
            done.get(30, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            release.complete(null);
        }
    }

    private static String field(LockClient client, long threadId) {
        return client.clientId() + ":" + threadId;
    }

    /**
     * Runs {@code unlock} while listening on lock {@code name}'s channel, then publishes a marker
     * from the node that holds the lock (so it arrives after anything the unlock published).
     *
     * @return the messages the unlock published on the channel
     */
    private List<Object> messagesOf(String name, Runnable unlock) {
        String channel = "redisson_lock__channel:{" + name + "}";
        List<Object> seen = new ArrayList<>();
        try (RespClient sub = kit.topology().adminFor(channel); RespClient node = kit.topology().adminFor(name)) {
            sub.call("SUBSCRIBE", channel);
            unlock.run();
            node.call("PUBLISH", channel, "tck-marker");
            while (true) {
                Object reply = sub.readReply();
                Object payload = reply instanceof List<?> l && l.size() == 3 ? l.get(2) : reply;
                if ("tck-marker".equals(payload)) {
                    return seen;
                }
                seen.add(payload);
            }
        }
    }

    /**
     * @return the PUBLISH and SPUBLISH commands the deployment has served so far, scripts' own
     *     included (every node's {@code INFO commandstats}, summed): how a rule sees that an unlock
     *     published nothing without subscribing, since a subscriber on a lock's channel is a waiter
     *     to the engine, and a waiter of another client stops local hand-off
     */
    private long publishesServed() {
        String info = (String) redis("INFO", "commandstats");
        long total = 0;
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("cmdstat_(publish|spublish):calls=(\\d+)").matcher(info);
        while (m.find()) {
            total += Long.parseLong(m.group(2));
        }
        return total;
    }

    private Map<String, String> hash(String key) {
        return hashOf(key);
    }

    /**
     * Rule 20.1: unlock hands the lock to a parked waiter of the same client in the release
     * script itself: when {@code unlock()} returns, the hash already names the waiter (count 1,
     * the watchdog TTL), the waiter holds it, and its unlock frees it.
     * When it fails: the release script must name a parked waiter of this client the owner, in the
     * same script and without publishing: if the hash still names the releaser, or the waiter is
     * not told, look at the hand-off offer between the unlock and the parked waiter.
     */
    @Test
    void rule20_1_unlock_handsLockToParkedLocalWaiter_inTheSameScript() throws Exception {
        LockClient client = client();
        DistributedLock lock = client.getLock("tck:handoff");
        lock.lock();
        try (Waiter w = new Waiter(lock, "tck-handoff-waiter")) {
            w.awaitParked();
            long publishesBefore = publishesServed();
            lock.unlock();
            long published = publishesServed() - publishesBefore;
            long waiterId = w.thread.get().getId();
            assertEquals(Map.of(field(client, waiterId), "1"), hash("tck:handoff"),
                    "right after unlock() returned, the hash must name the waiting thread");
            assertEquals(0, published, "a hand-off publishes nothing: the lock never became free");
            long ttl = pttl("tck:handoff");
            assertTrue(ttl > 0 && ttl <= LockOptions.DEFAULT_LOCK_WATCHDOG_TIMEOUT.toMillis(),
                    "the handed-off hold must carry the watchdog TTL, PTTL was " + ttl);
            assertEquals(waiterId, w.acquired.get(30, TimeUnit.SECONDS));
            assertTrue(lock.isHeldByThread(waiterId));
            w.finish();
        }
        assertFalse(lock.isLocked());
    }

    /**
     * Rule 20.2: a holder that re-entered hands off only with its last unlock; the inner unlock
     * leaves it the owner (count 1) and the waiter parked.
     * When it fails: only the last unlock may hand off: an inner unlock that changed the owner
     * means the hand-off was decided before the count reached zero.
     */
    @Test
    void rule20_2_reentrantHolder_handsOffOnlyWithItsLastUnlock() throws Exception {
        LockClient client = client();
        DistributedLock lock = client.getLock("tck:handoff-reentrant");
        lock.lock();
        lock.lock();
        try (Waiter w = new Waiter(lock, "tck-handoff-reentrant-waiter")) {
            w.awaitParked();
            lock.unlock();
            assertEquals(Map.of(field(client, Thread.currentThread().getId()), "1"), hash("tck:handoff-reentrant"));
            assertFalse(w.acquired.isDone(), "the waiter got the lock while its holder still held it once");
            lock.unlock();
            assertEquals(w.thread.get().getId(), w.acquired.get(30, TimeUnit.SECONDS));
            w.finish();
        }
        assertFalse(lock.isLocked());
    }

    /**
     * Rule 20.3: the handed-off hold is the waiter's own: the watchdog renews it past its TTL,
     * and {@code getHoldCount} is 1 on the waiter's thread.
     * When it fails: the handed-off hold must be registered as the waiter's own, so that the
     * watchdog renews it and {@code getHoldCount()} answers on the waiter's thread.
     */
    @Test
    void rule20_3_handedOffHold_isRenewedByTheWatchdog() throws Exception {
        LockClient client = kit.newLockClient(LockOptions.builder().noReplicaSync().lockWatchdogTimeout(Duration.ofSeconds(2)).build());
        DistributedLock lock = client.getLock("tck:handoff-renew");
        lock.lock();
        AtomicInteger count = new AtomicInteger(-1);
        try (Waiter w = new Waiter(new CountingLock(lock, count), "tck-handoff-renew-waiter")) {
            w.awaitParked();
            lock.unlock();
            long waiterId = w.acquired.get(30, TimeUnit.SECONDS);
            long handedAt = System.nanoTime();
            // Past the 2 s TTL the hand-off set: only renewal keeps it.
            Await.until(Duration.ofSeconds(20), () -> System.nanoTime() - handedAt > Duration.ofMillis(3000).toNanos()
                    && pttl("tck:handoff-renew") > 0, () -> "");
            assertTrue(lock.isHeldByThread(waiterId), "the handed-off hold expired: it was not renewed");
            w.finish();
            assertEquals(1, count.get(), "the waiter's hold count");
        }
    }

    /** Records the hold count its thread sees right after acquiring. */
    private record CountingLock(DistributedLock target, AtomicInteger count) implements java.util.concurrent.locks.Lock {
        @Override
        public void lock() {
            target.lock();
            count.set(target.getHoldCount());
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            target.lockInterruptibly();
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
            return target.newCondition();
        }
    }

    /**
     * Rule 20.4: runs of hand-offs are bounded, so a waiter of another client is not starved: while
     * three threads of one client take and release the lock back to back (every release could hand
     * off), a waiter of a second client acquires it, again and again.
     * When it fails: runs of hand-offs must be bounded (the run bound and hold-back) so that
     * another client's waiter can win the lock between them.
     */
    @Test
    void rule20_4_boundedRuns_otherClientsWaiterIsNotStarved() throws Exception {
        LockClient local = kit.newLockClient(LockOptions.builder().noReplicaSync().localHandoff(4, Duration.ofMillis(20)).build());
        LockClient outside = client();
        assertOutsiderProgresses(local.getLock("tck:handoff-bound"), outside.getLock("tck:handoff-bound"));
    }

    /**
     * Runs three threads looping lock/unlock on {@code busy} and requires the outsider to acquire
     * {@code outsider} (the same lock, through another client or API) five times meanwhile, each
     * within 60 s, while the loops keep going.
     *
     * @param busy the lock the three local threads take back to back
     * @param outsider the same lock as the outsider sees it
     * @throws Exception if a loop failed
     */
    public static void assertOutsiderProgresses(java.util.concurrent.locks.Lock busy,
            java.util.concurrent.locks.Lock outsider) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger localCycles = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<?>> loops = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                loops.add(pool.submit(() -> {
                    while (!stop.get()) {
                        busy.lock();
                        try {
                            localCycles.incrementAndGet();
                        } finally {
                            busy.unlock();
                        }
                    }
                    return null;
                }));
            }
            Await.until(Duration.ofSeconds(20), () -> localCycles.get() > 100, () -> "the local threads never got going");
            for (int i = 0; i < 5; i++) {
                int before = localCycles.get();
                assertTrue(outsider.tryLock(60, TimeUnit.SECONDS),
                        "the other client's waiter was starved for 60 s by local hand-offs");
                outsider.unlock();
                // The local threads keep running between the outsider's turns.
                Await.until(Duration.ofSeconds(20), () -> localCycles.get() > before + 10, () -> "local threads stalled");
            }
            stop.set(true);
            for (Future<?> f : loops) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
    }

    /**
     * Rule 20.5: the fair lock hands off only to the head of its queue: a parked local waiter at
     * the head is named owner by the unlock itself (queue emptied); a local waiter queued behind
     * another client's waiter waits its turn.
     * When it fails: the fair lock may hand off only to its queue's head: a local waiter behind
     * another client's waiter must wait its turn.
     */
    @Test
    void rule20_5_fairLock_handsOffOnlyToTheQueueHead() throws Exception {
        LockClient client = client();
        LockClient other = client();
        String name = "tck:handoff-fair";
        String queue = "redisson_lock_queue:{" + name + "}";
        DistributedLock lock = client.getFairLock(name);
        lock.lock();
        try (Waiter head = new Waiter(lock, "tck-handoff-fair-head")) {
            head.awaitParked();
            assertEquals(1L, redis("LLEN", queue));
            lock.unlock();
            assertEquals(Map.of(field(client, head.thread.get().getId()), "1"), hash(name));
            assertEquals(0L, redis("LLEN", queue), "the head left the queue as it took the lock");
            head.acquired.get(30, TimeUnit.SECONDS);
            head.finish();
        }
        // Another client's waiter heads the queue; a local one queues behind it.
        lock.lock();
        List<String> order = new CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> first = queueWaiter(pool, other.getFairLock(name), "other", order, queue);
            Future<?> second = queueWaiter(pool, lock, "local", order, queue);
            lock.unlock();
            first.get(30, TimeUnit.SECONDS);
            second.get(30, TimeUnit.SECONDS);
            assertEquals(List.of("other", "local"), order, "the fair queue's order");
        } finally {
            pool.shutdownNow();
        }
        assertFalse(lock.isLocked());
    }

    /**
     * Rule 20.6: nothing is left behind when waiters leave while hand-offs fly: threads taking the
     * lock with short waits, timed-out {@code tryLock}s and interrupts of parked waiters, on the reentrant and the
     * fair lock; afterwards no key, no hold, no waiter, and every successful {@code tryLock} held
     * the lock alone.
     * When it fails: a waiter leaving during a hand-off (timeout, interrupt) must withdraw its
     * offer, and a lock handed to it anyway must be given back: look at the offer's states.
     */
    @Test
    void rule20_6_waitersLeavingDuringHandoffs_leaveNothingBehind() throws Exception {
        LockClient client = client();
        for (DistributedLock lock : List.of(client.getLock("tck:handoff-churn"), client.getFairLock("tck:handoff-churn-fair"))) {
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            AtomicInteger acquisitions = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            Map<Thread, Throwable> failures = new ConcurrentHashMap<>();
            long until = System.nanoTime() + Duration.ofMillis(1500).toNanos();
            for (int i = 0; i < 6; i++) {
                Thread t = new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (System.nanoTime() - until < 0) {
                        try {
                            if (lock.tryLock(random.nextInt(0, 4), TimeUnit.MILLISECONDS)) {
                                try {
                                    if (inside.incrementAndGet() != 1) {
                                        overlaps.incrementAndGet();
                                    }
                                    acquisitions.incrementAndGet();
                                    inside.decrementAndGet();
                                } finally {
                                    lock.unlock();
                                }
                            }
                        } catch (InterruptedException e) {
                            // interrupted while waiting: the rule's point; go on
                        } catch (Throwable e) {
                            failures.put(Thread.currentThread(), e);
                            return;
                        }
                    }
                }, "tck-handoff-churn-" + i);
                threads.add(t);
                t.start();
            }
            while (System.nanoTime() - until < 0) {
                // Interrupt a waiter, not a thread inside a driver call: how a driver treats an
                // interrupt mid-command is the cancellation chapter's business (a Spring Lettuce
                // factory fails the command: "Unable to connect to Redis").
                Thread victim = threads.get(ThreadLocalRandom.current().nextInt(threads.size()));
                if (parkedForHandoff(victim)) {
                    victim.interrupt();
                }
                Thread.sleep(3); // pacing the interrupts, not waiting for an outcome
            }
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                assertFalse(t.isAlive(), t.getName() + " is stuck at " + Arrays.toString(t.getStackTrace()));
            }
            assertEquals(Map.of(), failures, "threads failed");
            assertEquals(0, overlaps.get(), "two threads held " + lock.getName() + " at once");
            assertTrue(acquisitions.get() > 0, "nobody ever acquired " + lock.getName());
            Await.until(Duration.ofSeconds(10), () -> client.stats().heldLocks() == 0 && client.stats().waiters() == 0,
                    () -> "holds or waiters left: " + client.stats());
            assertFalse(lock.isLocked(), lock.getName() + " left locked");
        }
    }

    /**
     * Rule 20.7: an asynchronous waiter of the same client still gets its turn while blocked
     * threads take the lock back to back (it is handed off to as they are, rule 20.13).
     * When it fails: an async waiter of the same client must get its turn while threads hand off to
     * each other (it is handed off to as well, rule 20.13).
     */
    @Test
    void rule20_7_asyncWaiterOfTheSameClient_isNotStarved() throws Exception {
        LockClient local = kit.newLockClient(LockOptions.builder().noReplicaSync().localHandoff(4, Duration.ofMillis(20)).build());
        DistributedLock lock = local.getLock("tck:handoff-async");
        assertOutsiderProgresses(lock, new AsyncAsLock(lock));
    }

    /** The async API seen as a Lock, on a thread id of its own (a different owner from the loops'). */
    private static final class AsyncAsLock implements java.util.concurrent.locks.Lock {
        private final DistributedLock lock;
        private final long owner = ThreadLocalRandom.current().nextLong(1L << 40, 1L << 50);

        AsyncAsLock(DistributedLock lock) {
            this.lock = lock;
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) {
            return lock.tryLockAsync(time, -1, unit, owner).join();
        }

        @Override
        public void unlock() {
            lock.unlockAsync(owner).join();
        }

        @Override
        public void lock() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void lockInterruptibly() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean tryLock() {
            throw new UnsupportedOperationException();
        }

        @Override
        public java.util.concurrent.locks.Condition newCondition() {
            throw new UnsupportedOperationException();
        }
    }

    /**
     * Rule 20.11: a waiter that finds this client already listening on the lock's channel before
     * its attempt parks after that one attempt: every release after it reaches the channel, so
     * the second attempt a first waiter makes once its subscription is confirmed is not needed.
     * When it fails: a waiter that joins a channel its client already listens on must park after
     * its one attempt; a second attempt means the engine did not know the channel was already live.
     */
    @Test
    void rule20_11_waiterJoiningALiveChannel_parksAfterOneAttempt() throws Exception {
        LockClient client = client();
        DistributedLock lock = client.getLock("tck:one-attempt");
        assertTrue(lock.tryLock(0, 60, TimeUnit.SECONDS)); // a lease, not the watchdog: no renewal scripts meanwhile
        try (Waiter first = new Waiter(lock, "tck-one-attempt-first");
                Waiter second = startAfterParked(first, lock, "tck-one-attempt-second")) {
            long before = second.scriptsBefore;
            second.awaitParked();
            assertEquals(1, scriptCallsServed() - before,
                    "scripts a waiter sent before parking on a channel its client already listened on");
            lock.unlock();
            finishInTurn(first, second);
        }
        assertFalse(lock.isLocked());
    }

    /**
     * Rule 20.12: a thread asking for a lock that a hand-off gave to another thread of its client
     * (and that another of its threads still waits for) sends no script before it parks: its
     * attempt could only fail. It gets the lock once the threads holding it before it are done.
     * (Which of the two waiters goes first is not this rule's business: the hand-off run may end
     * by time on a slow machine, and then a release wakes a waiter; rule 20.18 holds that order.)
     * When it fails: a thread asking for a lock its own client was just handed must park without
     * sending a script: its attempt could only fail.
     */
    @Test
    void rule20_12_lockHandedToAnotherLocalThread_waiterParksWithoutAScript() throws Exception {
        LockClient client = client();
        DistributedLock lock = client.getLock("tck:no-attempt");
        assertTrue(lock.tryLock(0, 60, TimeUnit.SECONDS));
        try (Waiter holder = new Waiter(lock, "tck-no-attempt-holder");
                Waiter queued = startAfterParked(holder, lock, "tck-no-attempt-queued")) {
            queued.awaitParked();
            lock.unlock(); // hands the lock to the first waiter; the second keeps the channel subscribed
            holder.acquired.get(30, TimeUnit.SECONDS);
            try (Waiter late = startAfterParked(queued, lock, "tck-no-attempt-late")) {
                long before = late.scriptsBefore;
                late.awaitParked();
                assertEquals(0, scriptCallsServed() - before,
                        "scripts sent by a waiter for a lock its client holds through a hand-off");
                finishInTurn(holder);
                finishAsGranted(queued, late);
            }
        }
        assertFalse(lock.isLocked());
    }

    /** Lets each waiter take the lock and release it, in this order (each release hands it to the next). */
    private static void finishInTurn(Waiter... waiters) throws Exception {
        for (Waiter w : waiters) {
            w.acquired.get(30, TimeUnit.SECONDS);
            w.finish();
        }
    }

    /**
     * Lets each waiter take the lock and release it, in the order they get it (each release lets
     * one of the others in), for rules that do not assert that order.
     */
    private static void finishAsGranted(Waiter... waiters) throws Exception {
        List<Waiter> left = new ArrayList<>(List.of(waiters));
        while (!left.isEmpty()) {
            CompletableFuture.anyOf(left.stream().map(w -> w.acquired).toArray(CompletableFuture[]::new))
                    .get(30, TimeUnit.SECONDS);
            Waiter next = left.stream().filter(w -> w.acquired.isDone()).findFirst().orElseThrow();
            left.remove(next);
            next.finish();
        }
    }

    /** Starts a second waiter once {@code first} is parked, noting the scripts served just before. */
    private Waiter startAfterParked(Waiter first, DistributedLock lock, String name) {
        first.awaitParked();
        long before = scriptCallsServed();
        Waiter w = new Waiter(lock, name);
        w.scriptsBefore = before;
        return w;
    }

    /**
     * Rule 20.8: with local hand-off off, a blocked waiter never parks for a hand-off, the unlock
     * publishes "0" as Redisson's does, and the waiter takes the lock with its own attempt.
     * When it fails: with local hand-off off the release must publish and no waiter may park for an
     * offer.
     */
    @Test
    void rule20_8_handoffOff_unlockPublishesAndTheWaiterAcquiresItself() throws Exception {
        LockClient client = kit.newLockClient(LockOptions.builder().noReplicaSync().noLocalHandoff().build());
        DistributedLock lock = client.getLock("tck:handoff-off");
        lock.lock();
        try (Waiter w = new Waiter(lock, "tck-handoff-off-waiter")) {
            Await.until(Duration.ofSeconds(20), () -> client.stats().waiters() == 1 && !channels().isEmpty(),
                    () -> "the waiter never waited");
            assertFalse(parkedForHandoff(w.thread.get()));
            assertEquals(List.of("0"), messagesOf("tck:handoff-off", lock::unlock));
            w.acquired.get(30, TimeUnit.SECONDS);
            w.finish();
        }
        assertFalse(lock.isLocked());
    }

    /**
     * Rule 20.13: an asynchronous waiter ({@code lockAsync}, no thread of its own) is handed off to
     * as a blocked thread is: the unlock names it owner in the same script, publishing nothing, and
     * its future completes holding the lock.
     * When it fails: an async waiter must be handed the lock in the release script as a blocked
     * thread is, and its future completed holding it.
     */
    @Test
    void rule20_13_asyncWaiter_isHandedTheLockByTheUnlock() throws Exception {
        LockClient client = client();
        DistributedLock lock = client.getLock("tck:handoff-async-direct");
        lock.lock();
        long owner = 4_000_001L;
        CompletableFuture<Void> waiter = lock.lockAsync(owner);
        Await.until(Duration.ofSeconds(20), () -> client.stats().waiters() == 1 && !channels().isEmpty(),
                () -> "the async waiter never waited");
        awaitArmed(client, "tck:handoff-async-direct");
        long publishesBefore = publishesServed();
        lock.unlock();
        assertEquals(0, publishesServed() - publishesBefore, "a hand-off to an async waiter publishes nothing");
        assertEquals(Map.of(field(client, owner), "1"), hash("tck:handoff-async-direct"),
                "right after unlock() returned, the hash must name the async waiter");
        waiter.get(30, TimeUnit.SECONDS);
        assertTrue(lock.isHeldByThread(owner));
        lock.unlockAsync(owner).get(30, TimeUnit.SECONDS);
        assertFalse(lock.isLocked());
    }

    /**
     * Rule 20.14: a multi-lock's waiter is handed each member it waits for, as any waiter: a
     * thread blocked on {@code multi(a, b)} while another thread of its client holds {@code a} gets
     * {@code a} from that thread's unlock in the same script, then takes {@code b}.
     * When it fails: a multi-lock's waiter must be handed each member it waits for, as any waiter
     * is.
     */
    @Test
    void rule20_14_multiLockWaiter_isHandedTheMemberItWaitsFor() throws Exception {
        LockClient client = client();
        DistributedLock a = client.getLock("{tck:handoff-multi}:a");
        DistributedLock b = client.getLock("{tck:handoff-multi}:b");
        DistributedLock multi = client.getMultiLock(a, b);
        a.lock();
        try (Waiter w = new Waiter(multi, "tck-handoff-multi-waiter")) {
            awaitArmed(client, "{tck:handoff-multi}:a");
            long publishesBefore = publishesServed();
            a.unlock();
            assertEquals(0, publishesServed() - publishesBefore, "a hand-off to a multi-lock's member wait publishes nothing");
            w.acquired.get(30, TimeUnit.SECONDS);
            assertTrue(multi.isHeldByThread(w.thread.get().getId()));
            w.finish();
        }
        assertFalse(a.isLocked() || b.isLocked());
    }

    /**
     * Rule 20.15: a hand-off release that runs late (its async call waited in a stalled driver
     * queue longer than twice the command timeout, so its waiter gave up on the claim and attempts
     * in RESOLVE mode) is the waiter's to take, never given back under it: the waiter's future
     * completes holding the lock, Redis names it (count 1), and another client cannot take it.
     * When it fails: a transfer that lands after its waiter gave up on the claim but kept waiting
     * must not be given back by the releaser (the waiter's RESOLVE attempt takes it as its grant):
     * look at the offer's ABANDONED and LANDED states and at LockRelease.handOff.
     */
    @Test
    void rule20_15_lateHandOff_toAWaiterThatGaveUpOnTheClaim_isTheWaitersToTake() throws Exception {
        Faults faults = new Faults();
        try {
            LockClient client = kit.newFaultyLockClient(LockOptions.builder().noReplicaSync().commandTimeout(LATE_COMMAND_TIMEOUT)
                    .build(), faults);
            String name = "tck:late-handoff";
            String channel = "redisson_lock__channel:{" + name + "}";
            DistributedLock lock = client.getLock(name);
            lock.lock();
            lock.unlock(); // both scripts known to Redis: no NOSCRIPT fallback reorders the stalled calls
            assertTrue(lock.tryLock(0, 60, TimeUnit.SECONDS)); // a lease: no renewal joins the stalled queue
            long owner = 4_000_015L;
            CompletableFuture<Void> waiter = lock.lockAsync(owner);
            awaitArmed(client, name);
            Faults.Stall stall = faults.stallAsync();
            CompletableFuture<Void> released = lock.unlockAsync(); // claims the waiter's offer; its script waits unsent
            Await.until(Duration.ofSeconds(20), () -> stall.queued() == 1, () -> "the release never queued");
            try (RespClient node = kit.topology().adminFor(channel)) {
                node.call("PUBLISH", channel, "0"); // a stray "0" wakes the waiter while its offer is claimed
            }
            Await.until(Duration.ofSeconds(30), () -> stall.queued() == 2,
                    () -> "the waiter never gave up on the claim and attempted again");
            stall.release(); // the release hands off; then the waiter's RESOLVE attempt runs; then whatever they sent
            waiter.get(30, TimeUnit.SECONDS);
            released.get(30, TimeUnit.SECONDS);
            Await.until(Duration.ofSeconds(30), () -> stall.unfinished() == 0, () -> "the stalled calls never drained");

            assertEquals(Map.of(field(client, owner), "1"), hash(name),
                    "the waiter's lockAsync completed: Redis must name it the owner, once");
            assertFalse(client().getLock(name).tryLock(0, 10, TimeUnit.SECONDS),
                    "another client took the lock the waiter believes it holds");
            assertTrue(lock.isHeldByThread(owner));
            lock.unlockAsync(owner).get(30, TimeUnit.SECONDS);
            assertFalse(lock.isLocked());
        } finally {
            faults.clear();
        }
    }

    /**
     * Rule 20.16: a waiter whose time ran out while its hand-off was claimed, and whose owner locks
     * again just as that late transfer lands (re-entering the field it left), holds the lock once
     * in the client as in Redis: the late transfer is given back (one count), the owner's own hold
     * stays registered and renewed past its watchdog timeout, and its one unlock frees the lock.
     * When it fails: a releaser whose transfer the waiter refused must not drop a hold the owner
     * registered itself (undo only its own registration, or register none): look at
     * LockRelease.handOff and HoldRegistry.unregister.
     */
    @Test
    void rule20_16_timedOutWaiterLockingAgainAsItsLateTransferLands_holdsOnce_renewed() throws Exception {
        Faults faults = new Faults();
        try {
            LockClient client = kit.newFaultyLockClient(LockOptions.builder().noReplicaSync().commandTimeout(LATE_COMMAND_TIMEOUT)
                    .lockWatchdogTimeout(Duration.ofSeconds(2)).build(), faults);
            String name = "tck:late-handoff-relock";
            DistributedLock lock = client.getLock(name);
            lock.lock();
            lock.unlock();
            assertTrue(lock.tryLock(0, 60, TimeUnit.SECONDS)); // a lease: it outlives the stall unrenewed
            CompletableFuture<Void> lockAgain = new CompletableFuture<>();
            CompletableFuture<Boolean> first = new CompletableFuture<>();
            CompletableFuture<Boolean> second = new CompletableFuture<>();
            CompletableFuture<Void> unlock = new CompletableFuture<>();
            CompletableFuture<Void> unlocked = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    first.complete(lock.tryLock(1, TimeUnit.SECONDS));
                    lockAgain.get(60, TimeUnit.SECONDS);
                    second.complete(lock.tryLock(10, TimeUnit.SECONDS));
                    unlock.get(60, TimeUnit.SECONDS);
                    lock.unlock();
                    unlocked.complete(null);
                } catch (Throwable e) {
                    first.completeExceptionally(e);
                    second.completeExceptionally(e);
                    unlocked.completeExceptionally(e);
                }
            }, "tck-late-handoff-relock");
            t.setDaemon(true);
            t.start();
            Await.until(Duration.ofSeconds(20), () -> parkedForHandoff(t), () -> "the waiter never parked for a hand-off");
            Faults.Stall stall = faults.stallAsync();
            Faults.Gate reply = faults.on("lock-release").delayReply();
            CompletableFuture<Void> released = lock.unlockAsync(); // claims the waiter's offer; its script waits unsent
            assertFalse(first.get(30, TimeUnit.SECONDS), "the waiter's time ran out while the claim was undecided");

            stall.release(); // the transfer lands now; its reply is held back
            String waiterField = field(client, t.getId());
            Await.until(Duration.ofSeconds(20), () -> hash(name).equals(Map.of(waiterField, "1")),
                    () -> "the late transfer never landed: " + hash(name));
            lockAgain.complete(null);
            assertTrue(second.get(30, TimeUnit.SECONDS), "the owner locks again: it re-enters the field the transfer left");
            reply.release(); // the releaser learns of its transfer only now
            released.get(30, TimeUnit.SECONDS);
            Await.until(Duration.ofSeconds(30), () -> stall.unfinished() == 0, () -> "the stalled calls never drained");
            assertEquals(Map.of(waiterField, "1"), hash(name), "the transfer nobody took was given back: one count");

            long from = System.nanoTime();
            // Past the 2 s TTL the give-back set: only renewal keeps it (or it is gone sooner).
            Await.until(Duration.ofSeconds(20), () -> System.nanoTime() - from > Duration.ofMillis(3000).toNanos()
                    || pttl(name) < 0, () -> "");
            assertTrue(lock.isHeldByThread(t.getId()), "the owner's hold expired: the client stopped renewing it");
            unlock.complete(null);
            unlocked.get(30, TimeUnit.SECONDS);
            assertFalse(lock.isLocked(), "its one unlock frees the lock");
        } finally {
            faults.clear();
        }
    }

    /**
     * Rule 20.17: a classic-only waiter of another client (a Redisson 3.x waiter, here a raw
     * {@code SUBSCRIBE} on the node that serves the lock) stops local hand-off, on a cluster too,
     * where this client's own classic subscription usually sits on another node: with a thread of
     * the client parked for the lock, the unlock publishes "0" (the outsider hears it) instead of
     * handing off; without the outsider it hands off. On a cluster, once for a lock on each master.
     * When it fails: the release script counts the lock's subscribers on the lock's node and
     * subtracts the client's own; on a cluster its classic subscription counts there only when its
     * classic pub/sub connection is on that node: look at
     * {@code CommandExecutor.classicPubSubOnNodeOf} in the driver and the release's own-classic
     * argument.
     */
    @Test
    void rule20_17_outsideClassicOnlyWaiterOnTheLocksNode_stopsHandoff() throws Exception {
        LockClient client = client();
        List<String> names = new ArrayList<>();
        if (kit.topology() instanceof io.github.relock.tck.fixtures.RedisCluster cluster) {
            java.util.Set<Integer> masters = new java.util.HashSet<>();
            for (int i = 0; masters.size() < cluster.masters().size() && i < 1000; i++) {
                String name = "tck:handoff-outsider-" + i;
                if (masters.add(cluster.masterFor(name).port())) {
                    names.add(name);
                }
            }
        } else {
            names.add("tck:handoff-outsider");
        }
        for (String name : names) {
            DistributedLock lock = client.getLock(name);
            lock.lock();
            try (Waiter w = new Waiter(lock, "tck-handoff-alone-waiter")) { // nobody else listens: it hands off
                w.awaitParked();
                lock.unlock();
                assertEquals(Map.of(field(client, w.thread.get().getId()), "1"), hash(name), name + ": with no"
                        + " other client listening the unlock must hand off (the client counted itself as another)");
                w.finish();
            }
        }
        if (kit.topology().kind() == io.github.relock.tck.fixtures.RedisTopology.Kind.CLUSTER) {
            org.junit.jupiter.api.Assumptions.assumeTrue(tellsClassicPubSubNode(names.get(0)), "the driver answers"
                    + " CommandExecutor.classicPubSubOnNodeOf with null (it cannot tell): core then assumes its classic"
                    + " subscription is on every node, which the SPI allows at the cost this rule checks");
        }
        for (String name : names) {
            DistributedLock lock = client.getLock(name);
            lock.lock();
            try (Waiter w = new Waiter(lock, "tck-handoff-outsider-waiter")) {
                w.awaitParked();
                List<Object> published = messagesOf(name, lock::unlock); // the outsider listens classic on the lock's node
                assertEquals(List.of("0"), published, name + ": with another client's classic waiter on the lock's"
                        + " node the unlock must publish \"0\" (the lock becomes free), not hand off past it");
                w.acquired.get(30, TimeUnit.SECONDS);
                w.finish();
            }
            assertFalse(lock.isLocked());
        }
    }

    /**
     * Rule 20.18: a release that publishes (by another client, so no hand-off) wakes one waiter of
     * a client, the one that parked first, on a cluster too, where each relock release reaches the
     * client twice (classic and sharded): the earlier of two waiters gets the lock, and the later
     * sends no script meanwhile (on a cluster, at most one: a copy that arrives after the earlier
     * waiter left holding the lock wakes the later one, since it may be another client's release).
     * Round after round.
     * When it fails: the two copies of one release (classic and sharded) must be one wake-up:
     * look at how the client pairs a copy with its twin ({@code Channel.heardOne}); "the later
     * waiter got the lock first" or one script too many means the twin woke the later waiter.
     */
    @Test
    void rule20_18_publishedRelease_wakesOnlyTheEarliestLocalWaiter() throws Exception {
        String name = "tck:handoff-fifo";
        DistributedLock held = client().getLock(name); // another client: its release has nobody to hand to
        LockClient client = kit.newLockClient(LockOptions.builder().noReplicaSync() // no renewal scripts while the rule counts
                .lockWatchdogTimeout(Duration.ofMinutes(3)).build());
        DistributedLock lock = client.getLock(name);
        assertTrue(held.tryLock(0, 60, TimeUnit.SECONDS)); // loads the scripts: no NOSCRIPT retry is counted below
        held.unlock();
        assertTrue(lock.tryLock(0, 60, TimeUnit.SECONDS));
        lock.unlock();
        for (int round = 0; round < 3; round++) {
            assertTrue(held.tryLock(0, 60, TimeUnit.SECONDS)); // a lease: no renewal scripts
            awaitRelayed(name, "tck-relayed-" + round); // the earlier releases' classic copies: not this round's
            try (Waiter earlier = new Waiter(lock, "tck-fifo-earlier-" + round);
                    Waiter later = startAfterParked(earlier, lock, "tck-fifo-later-" + round)) {
                later.awaitParked();
                long before = scriptCallsOn(name);
                held.unlock(); // publishes "0"; on a cluster classic and sharded
                CompletableFuture.anyOf(earlier.acquired, later.acquired).get(30, TimeUnit.SECONDS);
                assertFalse(later.acquired.isDone(), "round " + round + ": the later waiter got the lock first");
                long[] last = {scriptCallsOn(name), System.nanoTime()};
                Await.until(Duration.ofSeconds(20), () -> { // quiet for 200 ms: a woken later waiter has attempted
                    long now = scriptCallsOn(name);
                    if (now != last[0]) {
                        last[0] = now;
                        last[1] = System.nanoTime();
                        return false;
                    }
                    return System.nanoTime() - last[1] > Duration.ofMillis(200).toNanos();
                }, () -> "scripts never went quiet");
                later.awaitParked();
                // On a cluster the release's second copy may arrive after the earlier waiter took the
                // lock and left: it then wakes the later waiter for one attempt (Channel.twinOf: it
                // cannot tell a late twin from another client's release, and dropping that one left
                // waiters asleep on a free lock, rule 10.25). One attempt, never more.
                long allowed = kit.topology().kind() == RedisTopology.Kind.CLUSTER ? 3 : 2;
                long scripts = last[0] - before;
                assertTrue(scripts >= 2 && scripts <= allowed, "round " + round + ": " + scripts + " scripts from the other"
                        + " client's release until the earlier waiter held the lock: the release and the earlier waiter's"
                        + " attempt only" + (allowed == 3 ? ", and on a cluster at most one attempt of the later waiter" : ""));
                finishInTurn(earlier, later);
            }
        }
        assertFalse(lock.isLocked());
    }

    /**
     * On a cluster, waits until every node has passed on to its classic subscribers what the lock's
     * node published on the lock's channel so far. A classic copy reaches a subscriber on another
     * node over the cluster bus, on a loaded machine tens of milliseconds after the release (seen:
     * 42 ms): a waiter that subscribes after a release can still hear that release's classic copy,
     * though its sharded copy came before the waiter listened, and for the client it is a message
     * of its own. Rules that count what one release costs wait here before their waiters start: a
     * marker published on the lock's node after those releases has reached a classic subscriber on
     * every node (the bus keeps each link's order), and those subscribers have left before the
     * rule goes on (they would count as another client's waiters).
     */
    private void awaitRelayed(String name, String marker) {
        if (!(kit.topology() instanceof io.github.relock.tck.fixtures.RedisCluster cluster)) {
            return; // one server: a subscriber hears a release before the script returns
        }
        String channel = "redisson_lock__channel:{" + name + "}";
        List<RespClient> subscribers = new ArrayList<>();
        try {
            for (io.github.relock.tck.fixtures.RedisServer node : cluster.nodes()) {
                RespClient s = new RespClient(node.host(), node.port(), 10_000);
                subscribers.add(s);
                s.call("SUBSCRIBE", channel);
            }
            try (RespClient master = kit.topology().adminFor(name)) {
                master.call("PUBLISH", channel, marker); // a payload waiters ignore
            }
            for (RespClient s : subscribers) {
                Object m;
                do {
                    m = s.readReply(); // times out (fails) after 10 s
                } while (!(m instanceof List<?> push && push.size() == 3 && marker.equals(String.valueOf(push.get(2)))));
                s.call("UNSUBSCRIBE", channel);
            }
        } finally {
            subscribers.forEach(RespClient::close);
        }
    }

    /** Scripts the node serving {@code name} has run (on a cluster, not every node's traffic). */
    private long scriptCallsOn(String name) {
        try (RespClient node = kit.topology().adminFor(name)) {
            String info = (String) node.call("INFO", "commandstats");
            long total = 0;
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("cmdstat_(evalsha|eval):calls=(\\d+)").matcher(info);
            while (m.find()) {
                total += Long.parseLong(m.group(2));
            }
            return total;
        }
    }

    /**
     * Whether the driver tells where its classic pub/sub connection is: an executor of its own with
     * one classic subscription answers {@code classicPubSubOnNodeOf} for {@code name}'s slot.
     */
    private boolean tellsClassicPubSubNode(String name) throws Exception {
        try (io.github.relock.spi.CommandExecutor executor = kit.provider().create(kit.nativeClient(),
                new io.github.relock.spi.DriverOptions(Duration.ofSeconds(5), "relock-tck"))) {
            io.github.relock.spi.Subscription sub = executor.subscribe("tck:handoff-probe", false, (ch, m) -> { })
                    .get(30, TimeUnit.SECONDS);
            try {
                return executor.classicPubSubOnNodeOf(io.github.relock.tck.fixtures.RedisCluster.slot(name)) != null;
            } finally {
                sub.unsubscribe().get(30, TimeUnit.SECONDS);
            }
        }
    }

    /** A short command timeout, so a waiter gives up on an undecided claim after 2 s. */
    private static final Duration LATE_COMMAND_TIMEOUT = Duration.ofSeconds(1);

    /**
     * Waits until this client's waiter on {@code name} has its hand-off offer armed: it parked
     * after its attempts, which the kit sees as the lock's script calls going quiet while the
     * client counts a waiter.
     */
    private void awaitArmed(LockClient client, String name) {
        long[] last = {scriptCallsServed(), System.nanoTime()};
        Await.until(Duration.ofSeconds(20), () -> {
            long now = scriptCallsServed();
            if (now != last[0]) {
                last[0] = now;
                last[1] = System.nanoTime();
                return false;
            }
            return client.stats().waiters() >= 1 && System.nanoTime() - last[1] > Duration.ofMillis(200).toNanos();
        }, () -> "the waiter on " + name + " never parked");
    }
}
