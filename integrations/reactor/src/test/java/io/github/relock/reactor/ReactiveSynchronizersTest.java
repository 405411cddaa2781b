package io.github.relock.reactor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockClient;
import io.github.relock.api.LockTimeoutException;
import io.github.relock.api.PermitLease;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * {@link ReactiveSemaphore}, {@link ReactivePermitSemaphore} and {@link ReactiveCountDownLatch} on a
 * real Redis (the kit's fixture) through the Lettuce driver: exclusion counted, a bounded wait that
 * gives up in time, and cancellation that never leaks a permit (checked in Redis). Every wait is on a
 * condition with a deadline.
 */
@Timeout(60)
class ReactiveSynchronizersTest {
    private static final Duration DEADLINE = Duration.ofSeconds(15);
    private static final Duration LONG_WAIT = Duration.ofSeconds(60);

    private final RedisServer server = RedisFixture.shared();
    private String name;
    private LockClient client;

    @BeforeEach
    void setUp(TestInfo info) {
        name = "reactor-sync:" + info.getTestMethod().orElseThrow().getName();
        client = RedisLocks.connect(server.uri().toString());
    }

    @AfterEach
    void tearDown() {
        client.close();
        server.call("DEL", name, "{" + name + "}:timeout");
    }

    /** The semaphore's available permits as Redis holds them. */
    private long permitsInRedis() {
        Object v = server.call("GET", name);
        return v == null ? 0 : Long.parseLong(String.valueOf(v));
    }

    /** The permit-expirable semaphore's taken permits as Redis holds them. */
    private long takenInRedis() {
        return (Long) server.call("ZCARD", "{" + name + "}:timeout");
    }

    private void awaitWaiters(int n) {
        Await.until(DEADLINE, () -> client.stats().waiters() == n,
                () -> client.stats().waiters() + " waiter(s), expected " + n);
    }

    /** A subscriber that never requests: a grant stays inside the Mono, undelivered. */
    private static <T> BaseSubscriber<T> requestingNothing() {
        return new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(Subscription subscription) {
            }
        };
    }

    /**
     * Runs twenty subscribers at once, each inside {@code guard} for a few ms, counting how many
     * are inside together.
     *
     * @return the most that were inside at once
     */
    private static int mostInside(Function<Mono<Integer>, Publisher<Integer>> guard) {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        Long done = Flux.range(0, 20)
                .flatMap(i -> guard.apply(Mono.fromCallable(() -> {
                    most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    return i;
                }).delayElement(Duration.ofMillis(5)).doOnNext(v -> inside.decrementAndGet())), 20)
                .count()
                .block(DEADLINE);
        assertEquals(20, done);
        return most.get();
    }

    // ------------------------------------------------------------------ semaphore

    @Test
    void semaphore_twentySubscribersOnThreePermits_neverMoreThanThreeInside() {
        ReactiveSemaphore semaphore = ReactiveSemaphore.of(client.getSemaphore(name));
        assertTrue(semaphore.trySetPermits(3).block(DEADLINE));
        int most = mostInside(work -> semaphore.withPermitsMono(1, DEADLINE, () -> work));
        assertTrue(most <= 3, most + " subscribers were inside three permits");
        assertTrue(most >= 2, "the permits never overlapped: " + most);
        assertEquals(3, permitsInRedis(), "every permit came back");
    }

    @Test
    void semaphore_tryAcquireWithWait_noPermitFree_emitsFalseInTime_andTakesNothing() {
        ReactiveSemaphore semaphore = ReactiveSemaphore.of(client.getSemaphore(name));
        semaphore.trySetPermits(1).block(DEADLINE);
        semaphore.acquire().block(DEADLINE);
        long start = System.nanoTime();
        StepVerifier.create(semaphore.tryAcquire(Duration.ofMillis(200))).expectNext(false).verifyComplete();
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(took.compareTo(Duration.ofMillis(190)) >= 0 && took.compareTo(DEADLINE) < 0, "gave up after " + took);
        assertEquals(0, permitsInRedis(), "a timed-out tryAcquire changed the permits");
        StepVerifier.create(semaphore.withPermits(1, Duration.ZERO, () -> Mono.just(1)))
                .expectError(LockTimeoutException.class).verify(DEADLINE);
        semaphore.release().block(DEADLINE);
        assertEquals(1, permitsInRedis());
    }

    @Test
    void semaphore_cancelledWhileWaiting_takesNothingLater() {
        ReactiveSemaphore semaphore = ReactiveSemaphore.of(client.getSemaphore(name));
        semaphore.trySetPermits(1).block(DEADLINE);
        semaphore.acquire().block(DEADLINE);
        AtomicBoolean granted = new AtomicBoolean();
        Disposable waiting = semaphore.acquire().doOnSuccess(v -> granted.set(true)).subscribe();
        Disposable trying = semaphore.tryAcquire(LONG_WAIT).doOnNext(granted::set).subscribe();
        awaitWaiters(2);
        waiting.dispose();
        trying.dispose();
        awaitWaiters(0);
        semaphore.release().block(DEADLINE);
        assertEquals(1, permitsInRedis(), "the released permit was taken by a cancelled subscriber");
        assertFalse(granted.get());
    }

    @Test
    void semaphore_grantedBeforeRequest_thenCancelled_givesThePermitBack() {
        ReactiveSemaphore semaphore = ReactiveSemaphore.of(client.getSemaphore(name));
        semaphore.trySetPermits(2).block(DEADLINE);
        // acquire()'s Mono<Void> has nothing to hold back: its completion needs no request, so
        // the permit is delivered. A Boolean grant waits for a request.
        BaseSubscriber<Boolean> acquiring = requestingNothing();
        BaseSubscriber<Boolean> trying = requestingNothing();
        semaphore.tryAcquire().subscribe(acquiring);
        semaphore.tryAcquire(LONG_WAIT).subscribe(trying);
        Await.until(DEADLINE, () -> permitsInRedis() == 0, () -> "the engine never granted: " + permitsInRedis());
        acquiring.cancel();
        trying.cancel();
        Await.until(DEADLINE, () -> permitsInRedis() == 2, () -> "a cancelled grant kept its permit: " + permitsInRedis());
    }

    // ------------------------------------------------------------------ permit-expirable semaphore

    @Test
    void permitSemaphore_twentySubscribersOnTwoPermits_neverMoreThanTwoInside() {
        ReactivePermitSemaphore semaphore = ReactivePermitSemaphore.of(client.getPermitExpirableSemaphore(name));
        assertTrue(semaphore.trySetPermits(2).block(DEADLINE));
        AtomicInteger invalid = new AtomicInteger();
        int most = mostInside(work -> semaphore.withPermit(DEADLINE, Duration.ofSeconds(30),
                permit -> work.doOnSubscribe(s -> invalid.addAndGet(permit.isValid() ? 0 : 1))));
        assertTrue(most <= 2, most + " subscribers were inside two permits");
        assertEquals(0, invalid.get(), "work ran under a permit lease that was not valid");
        assertEquals(0, takenInRedis(), "a permit stayed taken");
        assertEquals(2, semaphore.availablePermits().block(DEADLINE));
    }

    @Test
    void permitSemaphore_tryAcquireWithWait_noPermitFree_isEmptyInTime_andTakesNothing() {
        ReactivePermitSemaphore semaphore = ReactivePermitSemaphore.of(client.getPermitExpirableSemaphore(name));
        semaphore.trySetPermits(1).block(DEADLINE);
        String id = semaphore.acquire(Duration.ofSeconds(30)).block(DEADLINE);
        StepVerifier.create(semaphore.tryAcquire(Duration.ofMillis(200), Duration.ofSeconds(30))).verifyComplete();
        StepVerifier.create(semaphore.acquireLease(Duration.ofMillis(100), null))
                .expectError(LockTimeoutException.class).verify(DEADLINE);
        assertEquals(1, takenInRedis(), "a timed-out tryAcquire changed the permits");
        semaphore.release(id).block(DEADLINE);
        assertEquals(0, takenInRedis());
        assertEquals(1, semaphore.availablePermits().block(DEADLINE));
    }

    @Test
    void permitSemaphore_cancelledWhileWaiting_takesNothingLater() {
        ReactivePermitSemaphore semaphore = ReactivePermitSemaphore.of(client.getPermitExpirableSemaphore(name));
        semaphore.trySetPermits(1).block(DEADLINE);
        String id = semaphore.acquire().block(DEADLINE);
        AtomicReference<Object> granted = new AtomicReference<>();
        Disposable byId = semaphore.tryAcquire(LONG_WAIT).subscribe(granted::set);
        Disposable lease = semaphore.acquireLease(LONG_WAIT, null).subscribe(granted::set);
        awaitWaiters(2);
        byId.dispose();
        lease.dispose();
        awaitWaiters(0);
        semaphore.release(id).block(DEADLINE);
        assertEquals(0, takenInRedis(), "the released permit was taken by a cancelled subscriber");
        assertNull(granted.get());
    }

    @Test
    void permitSemaphore_grantedBeforeRequest_thenCancelled_givesThePermitBack() {
        ReactivePermitSemaphore semaphore = ReactivePermitSemaphore.of(client.getPermitExpirableSemaphore(name));
        semaphore.trySetPermits(2).block(DEADLINE);
        BaseSubscriber<String> byId = requestingNothing();
        BaseSubscriber<PermitLease> lease = requestingNothing();
        semaphore.acquire().subscribe(byId);
        semaphore.acquireLease(LONG_WAIT, Duration.ofSeconds(30)).subscribe(lease);
        Await.until(DEADLINE, () -> takenInRedis() == 2, () -> "the engine never granted: " + takenInRedis());
        byId.cancel();
        lease.cancel();
        Await.until(DEADLINE, () -> takenInRedis() == 0, () -> "a cancelled grant kept its permit: " + takenInRedis());
        assertEquals(2, semaphore.availablePermits().block(DEADLINE));
    }

    // ------------------------------------------------------------------ latch

    @Test
    void latch_awaitCompletesOnTheLastCountDown_andTimesOutWhileCounted() {
        ReactiveCountDownLatch latch = ReactiveCountDownLatch.of(client.getCountDownLatch(name));
        assertTrue(latch.trySetCount(2).block(DEADLINE));
        assertFalse(latch.trySetCount(5).block(DEADLINE), "a counted latch cannot be set again");
        StepVerifier.create(latch.await(Duration.ofMillis(200))).expectNext(false).verifyComplete();
        AtomicBoolean open = new AtomicBoolean();
        Disposable waiting = latch.await().doOnSuccess(v -> open.set(true)).subscribe();
        StepVerifier opened = StepVerifier.create(latch.await(DEADLINE)).expectNext(true).expectComplete().verifyLater();
        awaitWaiters(2);
        latch.countDown().block(DEADLINE);
        assertEquals(1, latch.getCount().block(DEADLINE));
        assertFalse(open.get(), "opened at a count of 1");
        latch.countDown().block(DEADLINE);
        opened.verify(DEADLINE);
        Await.until(DEADLINE, open::get, () -> "await() never completed");
        assertEquals(0, latch.getCount().block(DEADLINE));
        waiting.dispose();
    }

    @Test
    void latch_awaitCancelled_leavesNoWaiter() {
        ReactiveCountDownLatch latch = ReactiveCountDownLatch.of(client.getCountDownLatch(name));
        latch.trySetCount(1).block(DEADLINE);
        Disposable waiting = latch.await().subscribe();
        Disposable timed = latch.await(LONG_WAIT).subscribe();
        awaitWaiters(2);
        waiting.dispose();
        timed.dispose();
        awaitWaiters(0);
        assertEquals(1, latch.getCount().block(DEADLINE), "a cancelled await changed the count");
        assertTrue(latch.delete().block(DEADLINE));
    }
}
