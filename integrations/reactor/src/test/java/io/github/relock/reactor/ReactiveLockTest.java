package io.github.relock.reactor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockLostException;
import io.github.relock.api.LockOptions;
import io.github.relock.api.LockTimeoutException;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.util.context.Context;

/**
 * {@link ReactiveLock} on a real Redis (the kit's fixture) through the Lettuce driver. The
 * cancellation rules are the Reactor twins of the kit's chapter 12 (rules 12.1, 12.2, 12.16): the
 * subscription's cancel must reach the engine's wait. Every wait is on a condition with a deadline.
 */
@Timeout(60)
class ReactiveLockTest {
    private static final Duration DEADLINE = Duration.ofSeconds(15);
    private static final Duration LONG_WAIT = Duration.ofSeconds(60);

    private final RedisServer server = RedisFixture.shared();
    private String name;
    private LockClient client; // the client under test
    private LockClient other; // another application instance, holding the lock in the way
    private ReactiveLock reactive;

    @BeforeEach
    void setUp(TestInfo info) {
        name = "reactor:" + info.getTestMethod().orElseThrow().getName();
        client = RedisLocks.connect(server.uri().toString());
        other = RedisLocks.connect(server.uri().toString());
        reactive = ReactiveLock.of(client.getLock(name));
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
        server.call("DEL", name);
    }

    private boolean exists() {
        return Long.valueOf(1).equals(server.call("EXISTS", name));
    }

    private void awaitGone(String why) {
        Await.until(DEADLINE, () -> !exists(), () -> name + " still exists: " + why);
    }

    private void awaitWaiters(LockClient c, int n) {
        Await.until(DEADLINE, () -> c.stats().waiters() == n, () -> c.stats().waiters() + " waiter(s), expected " + n);
    }

    /** Closes the client under test and asserts it kept no hold (no lock-lost event on close). */
    private void assertNoHoldOnClose() {
        assertNoHoldOnClose(client);
    }

    private static void assertNoHoldOnClose(LockClient c) {
        Await.until(DEADLINE, () -> c.stats().heldLocks() == 0,
                () -> "the client still holds " + c.stats().heldLocks() + " lock(s)");
        List<LockLostEvent> events = new CopyOnWriteArrayList<>();
        c.addLockLostListener(events::add);
        c.close();
        assertEquals(List.of(), events, "the client still had holds registered when closed");
    }

    /** Asserts a third party can take the lock within the deadline (then gives it back). */
    private void assertFreeForOthers() throws InterruptedException {
        DistributedLock third = other.getLock(name);
        assertTrue(third.tryLock(DEADLINE.toSeconds(), TimeUnit.SECONDS), name + " is still held by a subscriber who left");
        third.unlock();
    }

    // ------------------------------------------------------------------ leases

    @Test
    void acquire_emitsALeaseOfItsOwn_releasableFromAnotherThread() {
        LockLease lease = reactive.acquire(Duration.ZERO).block(DEADLINE);
        assertTrue(lease.ownerId() < 0, "a synthetic owner id, never a thread's: " + lease.ownerId());
        assertTrue(lease.isValid());
        assertTrue(client.getLock(name).isHeldByThread(lease.ownerId()));
        assertFalse(client.getLock(name).isHeldByCurrentThread(), "the lease is not bound to the subscribing thread");

        Mono.defer(() -> reactive.release(lease)).subscribeOn(Schedulers.boundedElastic()).block(DEADLINE);
        assertFalse(exists(), "released in Redis");
        assertFalse(lease.isValid(), "a lease released without blocking says so");
        reactive.release(lease).block(DEADLINE); // idempotent
        lease.close(); // and close() after it does nothing
        assertFalse(lease.expireIn(Duration.ofSeconds(5)), "a released lease cannot be extended");
    }

    @Test
    void acquire_twoSubscriptionsOnOneThread_excludeEachOther() {
        LockLease first = reactive.acquire(Duration.ZERO).block(DEADLINE);
        StepVerifier.create(reactive.acquire(Duration.ZERO))
                .expectError(LockTimeoutException.class)
                .verify(DEADLINE);
        reactive.release(first).block(DEADLINE);
        assertNoHoldOnClose();
    }

    @Test
    void acquire_lockHeldForTheWholeWait_failsWithLockTimeout() {
        DistributedLock holder = other.getLock(name);
        holder.lock();
        try {
            StepVerifier.create(reactive.acquire(Duration.ofMillis(100)))
                    .expectErrorSatisfies(e -> {
                        assertInstanceOf(LockTimeoutException.class, e);
                        assertTrue(e.getMessage().contains(name), e.getMessage());
                    })
                    .verify(DEADLINE);
        } finally {
            holder.unlock();
        }
        assertNoHoldOnClose();
    }

    @Test
    void acquire_withLeaseTime_theKeyExpiresOnItsOwn() {
        LockLease lease = reactive.acquire(Duration.ZERO, Duration.ofSeconds(20)).block(DEADLINE);
        long ttl = (Long) server.call("PTTL", name);
        assertTrue(ttl > 0 && ttl <= 20_000, "the lease time is the key's TTL, was " + ttl);
        reactive.release(lease).block(DEADLINE);
    }

    @Test
    void arguments_nullsThrowAtOnce_refusedValuesAreSignalled() {
        assertThrows(NullPointerException.class, () -> ReactiveLock.of(null));
        assertThrows(NullPointerException.class, () -> reactive.acquire(null));
        assertThrows(NullPointerException.class, () -> reactive.acquire(Duration.ZERO, null));
        assertThrows(NullPointerException.class, () -> reactive.withLock(Duration.ZERO, null));
        StepVerifier.create(reactive.acquire(Duration.ofMillis(-1)))
                .expectError(IllegalArgumentException.class)
                .verify(DEADLINE);
        LockLease foreign = ReactiveLock.of(client.getLock(name + ":other")).acquire(Duration.ZERO).block(DEADLINE);
        assertThrows(IllegalArgumentException.class, () -> reactive.release(foreign));
        foreign.close();
    }

    @Test
    void release_leaseLostMeanwhile_failsWithLockLost() {
        LockLease lease = reactive.acquire(Duration.ZERO).block(DEADLINE);
        server.call("DEL", name); // expired or force-unlocked behind the holder's back
        StepVerifier.create(reactive.release(lease))
                .expectError(LockLostException.class)
                .verify(DEADLINE);
        assertFalse(lease.isValid());
    }

    // ------------------------------------------------------------------ withLock

    @Test
    void withLock_subscribersOfTwoClients_excludeEachOther() {
        ReactiveLock second = ReactiveLock.of(other.getLock(name));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        int subscribers = 40;
        List<Integer> done = Flux.range(0, subscribers)
                .flatMap(i -> (i % 2 == 0 ? reactive : second).withLockMono(DEADLINE, lease -> Mono.fromCallable(() -> {
                    mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    return i;
                }).delayElement(Duration.ofMillis(1)).doOnNext(v -> inside.decrementAndGet())), subscribers)
                .collectList()
                .block(DEADLINE.multipliedBy(2));
        assertEquals(subscribers, done.size());
        assertEquals(1, mostInside.get(), "two subscribers were inside the lock at once");
        assertFalse(exists());
        assertNoHoldOnClose();
    }

    @Test
    void withLock_runsWithTheLockHeld_releasesOnComplete() {
        List<String> seen = reactive.withLock(DEADLINE, lease -> Flux.just("a", "b")
                        .map(v -> v + (exists() && lease.isValid() ? ":held" : ":free")))
                .collectList()
                .block(DEADLINE);
        assertEquals(List.of("a:held", "b:held"), seen);
        assertFalse(exists(), "released once the work completed");
        assertNoHoldOnClose();
    }

    @Test
    void withLock_workFails_theErrorIsPassedOn_andTheLockReleased() {
        IllegalStateException boom = new IllegalStateException("boom");
        StepVerifier.create(reactive.withLockMono(DEADLINE, lease -> Mono.error(boom)))
                .expectErrorSatisfies(e -> assertSame(boom, e))
                .verify(DEADLINE);
        assertFalse(exists());
        StepVerifier.create(reactive.withLock(DEADLINE, lease -> {
                    throw boom;
                }))
                .expectErrorSatisfies(e -> assertSame(boom, e))
                .verify(DEADLINE);
        assertFalse(exists(), "a work function that throws releases too");
        assertNoHoldOnClose();
    }

    @Test
    void withLock_leaseLostBeforeRenewalNoticed_completesWithLockLost() {
        StepVerifier.create(reactive.withLockMono(DEADLINE, lease -> Mono.fromRunnable(() -> server.call("DEL", name))))
                .expectError(LockLostException.class)
                .verify(DEADLINE);
    }

    /** Issue 35: loss cancels the work, within a watchdog timeout of the deletion, and fails with LockLostException. */
    @Test
    void withLock_lockDeletedWhileWorking_cancelsTheWorkAndFailsWithLockLost() {
        LockClient quick = RedisLocks.connect(server.uri().toString(),
                LockOptions.builder().lockWatchdogTimeout(Duration.ofMillis(600)).build());
        try {
            AtomicReference<Long> deletedAt = new AtomicReference<>();
            CompletableFuture<Long> cancelledAfter = new CompletableFuture<>();
            StepVerifier.create(ReactiveLock.of(quick.getLock(name)).withLock(DEADLINE, lease -> Flux.<String>never()
                            .doOnSubscribe(s -> {
                                deletedAt.set(System.nanoTime());
                                server.call("DEL", name);
                            })
                            .doOnCancel(() -> cancelledAfter.complete(System.nanoTime() - deletedAt.get()))))
                    .expectErrorSatisfies(e -> assertEquals(LockLostEvent.Reason.NOT_HELD,
                            assertInstanceOf(LockLostException.class, e).reason()))
                    .verify(DEADLINE);
            assertCancelledWithin(cancelledAfter.join(), Duration.ofMillis(600));
            assertFalse(exists());
        } finally {
            quick.close();
        }
    }

    /**
     * Issue 35: the holder's connections killed and its lock gone, as a failover to a replica that
     * never saw the lock does: the work is cancelled within the watchdog timeout of the kill,
     * {@code withLock} fails with {@link LockLostException} (NOT_HELD from a renewal retried on a
     * new connection, or RENEWAL_FAILED), and the client works again afterwards.
     */
    @Test
    void withLock_holdersConnectionsKilledAndLockGone_cancelsTheWorkAndFailsWithLockLost() throws Exception {
        Duration watchdog = Duration.ofMillis(600);
        LockClient quick = RedisLocks.connect(server.uri().toString(),
                LockOptions.builder().lockWatchdogTimeout(watchdog).build());
        try {
            CountDownLatch working = new CountDownLatch(1);
            AtomicReference<Long> lostAt = new AtomicReference<>();
            CompletableFuture<Long> cancelledAfter = new CompletableFuture<>();
            StepVerifier verifier = StepVerifier.create(ReactiveLock.of(quick.getLock(name)).withLock(DEADLINE,
                            lease -> Flux.<String>never()
                                    .doOnSubscribe(s -> working.countDown())
                                    .doOnCancel(() -> cancelledAfter.complete(System.nanoTime() - lostAt.get()))))
                    .expectError(LockLostException.class)
                    .verifyLater();
            assertTrue(working.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS), "the work never started");
            lostAt.set(System.nanoTime());
            server.call("DEL", name);
            killConnectionsOf(quick);
            verifier.verify(DEADLINE);
            assertCancelledWithin(cancelledAfter.join(), watchdog);
            StepVerifier.create(ReactiveLock.of(quick.getLock(name)).withLock(DEADLINE, lease -> Mono.just("again")))
                    .expectNext("again")
                    .verifyComplete(); // the driver reconnected
        } finally {
            quick.close();
        }
    }

    /** Kills every connection of {@code c} ({@code CLIENT KILL}; the driver names them {@code relock:<clientId>}). */
    private void killConnectionsOf(LockClient c) {
        int killed = 0;
        for (String line : String.valueOf(server.call("CLIENT", "LIST")).split("\n")) {
            if (line.contains(" name=relock:" + c.clientId() + " ")) {
                server.call("CLIENT", "KILL", "ID", line.substring(3, line.indexOf(' ')));
                killed++;
            }
        }
        assertTrue(killed > 0, "no connection of client " + c.clientId() + " found");
    }

    /**
     * Asserts the work was cancelled within {@code bound} (a watchdog timeout) of the loss, plus 2 s
     * for the machine's scheduling: the renewal that finds the loss runs on the client's timer, which
     * a loaded machine may run late.
     */
    private static void assertCancelledWithin(long afterNanos, Duration bound) {
        Duration allowed = bound.plusSeconds(2);
        assertTrue(afterNanos < allowed.toNanos(), "the work was cancelled "
                + TimeUnit.NANOSECONDS.toMillis(afterNanos) + " ms after the loss: not within " + bound
                + " (plus 2 s for the machine's scheduling)");
    }

    @Test
    void withLock_workFailsAndTheLeaseWasLost_theWorkErrorComesFirst() {
        IllegalStateException boom = new IllegalStateException("boom");
        StepVerifier.create(reactive.withLockMono(DEADLINE, lease -> Mono.fromRunnable(() -> server.call("DEL", name))
                        .then(Mono.error(boom))))
                .expectErrorSatisfies(e -> {
                    assertSame(boom, e);
                    assertInstanceOf(LockLostException.class, e.getSuppressed()[0]);
                })
                .verify(DEADLINE);
    }

    @Test
    void withLock_cancelledWhileWorking_releases() {
        Disposable working = reactive.withLock(DEADLINE, lease -> Flux.never()).subscribe();
        Await.until(DEADLINE, this::exists, () -> "the work never got the lock");
        working.dispose();
        awaitGone("a cancelled withLock kept the lock");
        assertNoHoldOnClose();
    }

    @Test
    void withLock_reactorContextReachesTheWork() {
        String user = reactive.withLockMono(DEADLINE, lease -> Mono.deferContextual(ctx -> Mono.just(ctx.<String>get("user"))))
                .contextWrite(Context.of("user", "alice"))
                .block(DEADLINE);
        assertEquals("alice", user);
    }

    // ------------------------------------------------------------------ cancellation: twins of chapter 12

    /** Rule 12.1 through Reactor: a subscription cancelled while waiting never takes the lock. */
    @Test
    void rule12_1_cancelledWhileWaiting_neverTakesTheLock() throws Exception {
        DistributedLock holder = other.getLock(name);
        holder.lock();
        AtomicReference<LockLease> granted = new AtomicReference<>();
        AtomicBoolean workRan = new AtomicBoolean();
        Disposable acquiring = reactive.acquire(LONG_WAIT).subscribe(granted::set);
        Disposable using = reactive.withLock(LONG_WAIT, lease -> Mono.fromRunnable(() -> workRan.set(true))).subscribe();
        awaitWaiters(client, 2);
        acquiring.dispose();
        using.dispose();
        awaitWaiters(client, 0);
        holder.unlock();
        assertFreeForOthers();
        assertNull(granted.get());
        assertFalse(workRan.get());
        assertNoHoldOnClose();
    }

    /** Rule 12.2 through Reactor: a {@code timeout} while waiting leaves nothing held. */
    @Test
    void rule12_2_timeoutWhileWaiting_leavesNothingHeld() throws Exception {
        DistributedLock holder = other.getLock(name);
        holder.lock();
        StepVerifier.create(reactive.acquire(LONG_WAIT).timeout(Duration.ofMillis(300)))
                .expectError(TimeoutException.class)
                .verify(DEADLINE);
        StepVerifier.create(reactive.withLockMono(LONG_WAIT, lease -> Mono.just(1)).timeout(Duration.ofMillis(300)))
                .expectError(TimeoutException.class)
                .verify(DEADLINE);
        awaitWaiters(client, 0);
        holder.unlock();
        assertFreeForOthers();
        assertNoHoldOnClose();
    }

    /**
     * Rule 12.16 through Reactor: a cancelled waiter passes its wake-up on: the next waiter of the
     * same client acquires on the unlock message, long before the holder's 60 s lease runs out.
     */
    @Test
    void rule12_16_cancelledWaiter_passesWakeUpOn() throws Exception {
        DistributedLock holder = other.getLock(name);
        holder.lock(60, TimeUnit.SECONDS);
        Disposable first = reactive.acquire(LONG_WAIT).subscribe();
        CompletableFuture<LockLease> second = reactive.acquire(LONG_WAIT).toFuture();
        awaitWaiters(client, 2); // both first attempts answered: both wait on the channel
        first.dispose();
        holder.unlock();
        LockLease lease = second.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        reactive.release(lease).block(DEADLINE);
        assertNoHoldOnClose();
    }

    /** A lease granted while nobody has requested it yet, then cancelled, is given back. */
    @Test
    void grantedBeforeRequest_thenCancelled_isGivenBack() {
        BaseSubscriber<LockLease> requestsNothing = new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(Subscription subscription) {
                // no request: the grant stays inside the Mono, undelivered
            }
        };
        reactive.acquire(Duration.ZERO).subscribe(requestsNothing);
        Await.until(DEADLINE, this::exists, () -> "the engine never granted the lock");
        requestsNothing.cancel();
        awaitGone("a grant nobody received was kept");
        assertNoHoldOnClose();
    }

    @Test
    void deliverOn_theWorkStartsOnTheGivenScheduler() {
        String thread = ReactiveLock.of(client.getLock(name), Schedulers.boundedElastic())
                .withLockMono(DEADLINE, lease -> Mono.fromCallable(() -> Thread.currentThread().getName()))
                .block(DEADLINE);
        assertTrue(thread.startsWith("boundedElastic"), "the work ran on " + thread);
        assertNoHoldOnClose();
    }

    /** A cancel that comes while the granted lease waits for the delivering scheduler gives it back. */
    @Test
    void deliverOn_cancelledWhileTheLeaseIsOnItsWay_isGivenBack() throws Exception {
        Scheduler stalled = Schedulers.newSingle("stalled");
        CountDownLatch busy = new CountDownLatch(1);
        try {
            stalled.schedule(() -> {
                try {
                    busy.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            AtomicReference<LockLease> delivered = new AtomicReference<>();
            Disposable acquiring = ReactiveLock.of(client.getLock(name), stalled).acquire(Duration.ZERO).subscribe(delivered::set);
            Await.until(DEADLINE, this::exists, () -> "the engine never granted the lock");
            acquiring.dispose();
            busy.countDown();
            awaitGone("a lease cancelled on its way to the scheduler was kept");
            assertNull(delivered.get());
        } finally {
            busy.countDown();
            stalled.dispose();
        }
        assertNoHoldOnClose();
    }

    // ------------------------------------------------------------------ many waiters, few threads

    private static int liveThreads() {
        return Thread.getAllStackTraces().size();
    }

    @Test
    void twoThousandSubscribersOnTenLocks_excludeEachOther_withoutAThreadEach() {
        // 2,000 first attempts leave at once on one connection: on a loaded 2-core machine the last
        // answers may take longer than the default 3 s command timeout.
        LockClient patient = RedisLocks.connect(server.uri().toString(),
                LockOptions.builder().commandTimeout(Duration.ofSeconds(30)).build());
        ReactiveLock warmUp = ReactiveLock.of(patient.getLock(name));
        warmUp.acquire(Duration.ZERO).flatMap(warmUp::release).block(DEADLINE); // connections and threads up
        int before = liveThreads();
        int locks = 10;
        int perLock = 200;
        ReactiveLock[] views = new ReactiveLock[locks];
        AtomicInteger[] inside = new AtomicInteger[locks];
        for (int i = 0; i < locks; i++) {
            views[i] = ReactiveLock.of(patient.getLock(name + ":" + i));
            inside[i] = new AtomicInteger();
        }
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger mostThreads = new AtomicInteger();
        Long done = Flux.range(0, locks * perLock)
                .flatMap(i -> views[i % locks].withLockMono(LONG_WAIT, lease -> Mono.fromCallable(() -> {
                    if (inside[i % locks].incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    mostThreads.accumulateAndGet(liveThreads(), Math::max);
                    inside[i % locks].decrementAndGet();
                    return i;
                })), locks * perLock)
                .count()
                .block(Duration.ofSeconds(50));
        assertEquals(locks * perLock, done);
        assertEquals(0, overlaps.get(), "subscribers overlapped inside a lock");
        assertTrue(mostThreads.get() - before < 32, "threads grew from " + before + " to " + mostThreads.get()
                + " for " + locks * perLock + " waiters");
        for (int i = 0; i < locks; i++) {
            server.call("DEL", name + ":" + i);
        }
        assertNoHoldOnClose(patient);
    }
}
