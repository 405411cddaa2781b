package io.github.relock.rxjava3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.DistributedSemaphore;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockTimeoutException;
import io.github.relock.api.PermitExpirableSemaphore;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Maybe;
import io.reactivex.rxjava3.core.MaybeObserver;
import io.reactivex.rxjava3.core.Single;
import io.reactivex.rxjava3.disposables.Disposable;
import io.reactivex.rxjava3.observers.TestObserver;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RxLock}, {@link RxSemaphore}, {@link RxPermitSemaphore} and {@link RxCountDownLatch} on a
 * real Redis (the kit's fixture) through the Lettuce driver: exclusion counted, a bounded wait that
 * gives up in time, and disposal that never leaks a lock or a permit (checked in Redis), also when
 * the grant lands as the dispose comes. Every wait is on a condition with a deadline.
 */
@Timeout(60)
class RxSynchronizersTest {
    private static final Duration DEADLINE = Duration.ofSeconds(15);
    private static final Duration LONG_WAIT = Duration.ofSeconds(60);

    private final RedisServer server = RedisFixture.shared();
    private String name;
    private LockClient client;
    private LockClient other;

    @BeforeEach
    void setUp(TestInfo info) {
        name = "rxjava3:" + info.getTestMethod().orElseThrow().getName();
        client = RedisLocks.connect(server.uri().toString());
        other = RedisLocks.connect(server.uri().toString());
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
        server.call("DEL", name, "{" + name + "}:timeout");
    }

    private boolean exists() {
        return Long.valueOf(1).equals(server.call("EXISTS", name));
    }

    private long permitsInRedis() {
        Object v = server.call("GET", name);
        return v == null ? 0 : Long.parseLong(String.valueOf(v));
    }

    private long takenInRedis() {
        return (Long) server.call("ZCARD", "{" + name + "}:timeout");
    }

    private void awaitWaiters(int n) {
        Await.until(DEADLINE, () -> client.stats().waiters() == n,
                () -> client.stats().waiters() + " waiter(s), expected " + n);
    }

    private static <T> T await(Single<T> single) {
        return single.timeout(DEADLINE.toMillis(), TimeUnit.MILLISECONDS).blockingGet();
    }

    /**
     * Runs twenty subscribers at once, each inside {@code guard} for a few ms, counting how many
     * are inside together.
     *
     * @return the most that were inside at once
     */
    private static int mostInside(Function<Single<Integer>, Single<Integer>> guard) {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        Long done = Flowable.range(0, 20)
                .flatMapSingle(i -> guard.apply(Single.fromCallable(() -> {
                    most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    return i;
                }).delay(5, TimeUnit.MILLISECONDS).doOnSuccess(v -> inside.decrementAndGet())))
                .count()
                .timeout(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
                .blockingGet();
        assertEquals(20, done);
        return most.get();
    }

    /**
     * {@code delegate} whose asynchronous calls return their future already completed: the grant
     * has landed in Redis before the subscription's dispose, which then finds a completed future
     * it cannot cancel (the window where a dispose races a grant, made certain).
     */
    @SuppressWarnings("unchecked")
    private static <T> T grantedAtOnce(Class<T> type, T delegate) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            Object result = method.invoke(delegate, args);
            if (result instanceof CompletableFuture<?> f) {
                f.handle((v, e) -> v).join();
            }
            return result;
        });
    }

    /** Subscribes {@code source} with an observer that disposes before anything can be delivered. */
    private static <T> void subscribeDisposingAtOnce(Maybe<T> source) {
        source.subscribe(new MaybeObserver<T>() {
            @Override
            public void onSubscribe(Disposable d) {
                d.dispose();
            }

            @Override
            public void onSuccess(T value) {
                throw new AssertionError("delivered after dispose: " + value);
            }

            @Override
            public void onError(Throwable e) {
                throw new AssertionError("delivered after dispose", e);
            }

            @Override
            public void onComplete() {
            }
        });
    }

    // ------------------------------------------------------------------ lock

    @Test
    void lock_twentySubscribersOfTwoClients_excludeEachOther() {
        RxLock mine = RxLock.of(client.getLock(name));
        RxLock theirs = RxLock.of(other.getLock(name));
        AtomicInteger turn = new AtomicInteger();
        int most = mostInside(work -> (turn.getAndIncrement() % 2 == 0 ? mine : theirs).withLock(DEADLINE, lease -> work));
        assertEquals(1, most, "two subscribers were inside the lock at once");
        assertFalse(exists(), "released after the last work");
    }

    @Test
    void withLock_workFails_theErrorIsPassedOn_andTheLockReleased() {
        RxLock lock = RxLock.of(client.getLock(name));
        IllegalStateException boom = new IllegalStateException("boom");
        lock.withLock(DEADLINE, lease -> Single.error(boom)).test()
                .awaitDone(DEADLINE.toMillis(), TimeUnit.MILLISECONDS).assertError(boom);
        assertFalse(exists(), "a failed work kept the lock");
    }

    /**
     * Disposed the moment the lock appears in Redis: the dispose lands before, during or after the
     * grant's delivery and the work's start (each of these was once a leak), and the lock is
     * released every time.
     */
    @Test
    void withLock_disposedAsTheLockIsTaken_releasesEveryTime() {
        RxLock lock = RxLock.of(client.getLock(name));
        for (int round = 0; round < 20; round++) {
            Disposable working = lock.withLock(DEADLINE, lease -> Single.never()).subscribe();
            Await.until(DEADLINE, this::exists, () -> "the work never got the lock");
            working.dispose();
            int r = round;
            Await.until(DEADLINE, () -> !exists() && client.stats().heldLocks() == 0,
                    () -> "round " + r + ": a disposed withLock kept the lock: " + client.stats());
        }
    }

    @Test
    void lock_leaseHasAnOwnerOfItsOwn_unlockedFromAnotherThread() throws Exception {
        RxLock lock = RxLock.of(client.getLock(name));
        LockLease lease = await(lock.lock(Duration.ZERO));
        assertTrue(lease.ownerId() < 0, "a synthetic owner id, never a thread's: " + lease.ownerId());
        assertFalse(client.getLock(name).isHeldByCurrentThread());
        assertTrue(await(lock.isLocked()));
        Thread t = new Thread(() -> lock.unlock(lease).blockingAwait());
        t.start();
        t.join(DEADLINE.toMillis());
        assertFalse(exists(), "unlocked from another thread");
        lock.unlock(lease).blockingAwait(); // idempotent
    }

    @Test
    void lock_tryLockWithWait_heldElsewhere_isEmptyInTime_andLeavesTheHolder() {
        DistributedLock holder = other.getLock(name);
        holder.lock();
        try {
            RxLock lock = RxLock.of(client.getLock(name));
            long start = System.nanoTime();
            lock.tryLock(Duration.ofMillis(200)).test().awaitDone(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
                    .assertNoValues().assertComplete();
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(tookMs >= 190 && tookMs < DEADLINE.toMillis(), "gave up after " + tookMs + " ms");
            lock.lock(Duration.ofMillis(50)).test().awaitDone(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
                    .assertError(LockTimeoutException.class);
            assertTrue(holder.isHeldByCurrentThread(), "the holder lost its lock");
        } finally {
            holder.unlock();
        }
        assertFalse(exists());
    }

    @Test
    void lock_disposedWhileWaiting_neverTakesTheLock() throws Exception {
        DistributedLock holder = other.getLock(name);
        holder.lock();
        RxLock lock = RxLock.of(client.getLock(name));
        AtomicReference<Object> granted = new AtomicReference<>();
        Disposable waiting = lock.tryLock(LONG_WAIT).subscribe(granted::set);
        Disposable working = lock.withLock(LONG_WAIT, lease -> Single.just(1)).subscribe(granted::set);
        awaitWaiters(2);
        waiting.dispose();
        working.dispose();
        awaitWaiters(0);
        holder.unlock();
        DistributedLock third = other.getLock(name);
        assertTrue(third.tryLock(DEADLINE.toSeconds(), TimeUnit.SECONDS), "still held by a subscriber who left");
        third.unlock();
        assertNull(granted.get());
    }

    @Test
    void lock_grantLandedAsTheDisposeCame_isGivenBack() {
        RxLock lock = RxLock.of(grantedAtOnce(DistributedLock.class, client.getLock(name)));
        subscribeDisposingAtOnce(lock.tryLock(LONG_WAIT));
        Await.until(DEADLINE, () -> client.stats().heldLocks() == 0 && !exists(),
                () -> "a grant nobody received was kept: " + client.stats() + ", key exists: " + exists());
    }

    // ------------------------------------------------------------------ semaphore

    @Test
    void semaphore_twentySubscribersOnThreePermits_neverMoreThanThreeInside() {
        RxSemaphore semaphore = RxSemaphore.of(client.getSemaphore(name));
        assertTrue(await(semaphore.trySetPermits(3)));
        int most = mostInside(work -> semaphore.withPermits(1, DEADLINE, () -> work));
        assertTrue(most <= 3, most + " subscribers were inside three permits");
        assertTrue(most >= 2, "the permits never overlapped: " + most);
        assertEquals(3, permitsInRedis(), "every permit came back");
    }

    @Test
    void semaphore_tryAcquireWithWait_noPermitFree_isFalseInTime_andTakesNothing() {
        RxSemaphore semaphore = RxSemaphore.of(client.getSemaphore(name));
        await(semaphore.trySetPermits(1));
        semaphore.acquire().blockingAwait(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        long start = System.nanoTime();
        assertFalse(await(semaphore.tryAcquire(Duration.ofMillis(200))));
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMs >= 190 && tookMs < DEADLINE.toMillis(), "gave up after " + tookMs + " ms");
        assertEquals(0, permitsInRedis(), "a timed-out tryAcquire changed the permits");
        semaphore.withPermits(1, Duration.ZERO, () -> Single.just(1)).test()
                .awaitDone(DEADLINE.toMillis(), TimeUnit.MILLISECONDS).assertError(LockTimeoutException.class);
        semaphore.release().blockingAwait();
        assertEquals(1, permitsInRedis());
    }

    @Test
    void semaphore_disposedWhileWaiting_takesNothingLater() {
        RxSemaphore semaphore = RxSemaphore.of(client.getSemaphore(name));
        await(semaphore.trySetPermits(1));
        semaphore.acquire().blockingAwait();
        AtomicReference<Object> granted = new AtomicReference<>();
        Disposable waiting = semaphore.acquire().subscribe(() -> granted.set("acquired"));
        Disposable trying = semaphore.tryAcquire(LONG_WAIT).subscribe(ok -> granted.set(ok ? "tried" : null));
        awaitWaiters(2);
        waiting.dispose();
        trying.dispose();
        awaitWaiters(0);
        semaphore.release().blockingAwait();
        assertEquals(1, permitsInRedis(), "the released permit was taken by a disposed subscriber");
        assertNull(granted.get());
    }

    @Test
    void semaphore_grantLandedAsTheDisposeCame_isGivenBack() {
        RxSemaphore semaphore = RxSemaphore.of(grantedAtOnce(DistributedSemaphore.class, client.getSemaphore(name)));
        await(semaphore.trySetPermits(3));
        subscribeDisposingAtOnce(semaphore.acquire().toMaybe());
        subscribeDisposingAtOnce(semaphore.tryAcquire(LONG_WAIT).toMaybe());
        subscribeDisposingAtOnce(semaphore.tryAcquire().toMaybe());
        Await.until(DEADLINE, () -> permitsInRedis() == 3,
                () -> "a grant nobody received kept its permit: " + permitsInRedis() + " of 3 free");
    }

    // ------------------------------------------------------------------ permit-expirable semaphore

    @Test
    void permitSemaphore_twentySubscribersOnTwoPermits_neverMoreThanTwoInside() {
        RxPermitSemaphore semaphore = RxPermitSemaphore.of(client.getPermitExpirableSemaphore(name));
        assertTrue(await(semaphore.trySetPermits(2)));
        AtomicInteger invalid = new AtomicInteger();
        int most = mostInside(work -> semaphore.withPermit(DEADLINE, Duration.ofSeconds(30),
                permit -> work.doOnSubscribe(d -> invalid.addAndGet(permit.isValid() ? 0 : 1))));
        assertTrue(most <= 2, most + " subscribers were inside two permits");
        assertEquals(0, invalid.get(), "work ran under a permit lease that was not valid");
        Await.until(DEADLINE, () -> takenInRedis() == 0, () -> takenInRedis() + " permit(s) stayed taken");
        assertEquals(2, await(semaphore.availablePermits()));
    }

    @Test
    void permitSemaphore_tryAcquireWithWait_noPermitFree_isEmptyInTime_andTakesNothing() {
        RxPermitSemaphore semaphore = RxPermitSemaphore.of(client.getPermitExpirableSemaphore(name));
        await(semaphore.trySetPermits(1));
        String id = await(semaphore.acquire(Duration.ofSeconds(30)));
        semaphore.tryAcquire(Duration.ofMillis(200), Duration.ofSeconds(30)).test()
                .awaitDone(DEADLINE.toMillis(), TimeUnit.MILLISECONDS).assertNoValues().assertComplete();
        semaphore.acquireLease(Duration.ofMillis(100), null).test()
                .awaitDone(DEADLINE.toMillis(), TimeUnit.MILLISECONDS).assertError(LockTimeoutException.class);
        assertEquals(1, takenInRedis(), "a timed-out tryAcquire changed the permits");
        semaphore.release(id).blockingAwait();
        assertEquals(0, takenInRedis());
    }

    @Test
    void permitSemaphore_disposedWhileWaiting_takesNothingLater() {
        RxPermitSemaphore semaphore = RxPermitSemaphore.of(client.getPermitExpirableSemaphore(name));
        await(semaphore.trySetPermits(1));
        String id = await(semaphore.acquire());
        AtomicReference<Object> granted = new AtomicReference<>();
        Disposable byId = semaphore.tryAcquire(LONG_WAIT).subscribe(granted::set);
        Disposable lease = semaphore.acquireLease(LONG_WAIT, null).subscribe(granted::set);
        awaitWaiters(2);
        byId.dispose();
        lease.dispose();
        awaitWaiters(0);
        semaphore.release(id).blockingAwait();
        assertEquals(0, takenInRedis(), "the released permit was taken by a disposed subscriber");
        assertNull(granted.get());
    }

    @Test
    void permitSemaphore_grantLandedAsTheDisposeCame_isGivenBack() {
        RxPermitSemaphore semaphore = RxPermitSemaphore.of(
                grantedAtOnce(PermitExpirableSemaphore.class, client.getPermitExpirableSemaphore(name)));
        await(semaphore.trySetPermits(3));
        subscribeDisposingAtOnce(semaphore.acquire().toMaybe());
        subscribeDisposingAtOnce(semaphore.tryAcquire(LONG_WAIT));
        subscribeDisposingAtOnce(semaphore.acquireLease(LONG_WAIT, Duration.ofSeconds(30)).toMaybe());
        Await.until(DEADLINE, () -> takenInRedis() == 0,
                () -> "a grant nobody received kept its permit: " + takenInRedis() + " taken");
        assertEquals(3, await(semaphore.availablePermits()));
    }

    // ------------------------------------------------------------------ latch

    @Test
    void latch_awaitCompletesOnTheLastCountDown_andTimesOutWhileCounted() {
        RxCountDownLatch latch = RxCountDownLatch.of(client.getCountDownLatch(name));
        assertTrue(await(latch.trySetCount(2)));
        assertFalse(await(latch.trySetCount(5)), "a counted latch cannot be set again");
        assertFalse(await(latch.await(Duration.ofMillis(200))));
        TestObserver<Void> waiting = latch.await().test();
        TestObserver<Boolean> timed = latch.await(DEADLINE).test();
        awaitWaiters(2);
        latch.countDown().blockingAwait();
        assertEquals(1, await(latch.getCount()));
        waiting.assertNotComplete();
        latch.countDown().blockingAwait();
        waiting.awaitDone(DEADLINE.toMillis(), TimeUnit.MILLISECONDS).assertComplete();
        timed.awaitDone(DEADLINE.toMillis(), TimeUnit.MILLISECONDS).assertValue(true);
        assertEquals(0, await(latch.getCount()));
    }

    @Test
    void latch_awaitDisposed_leavesNoWaiter() {
        RxCountDownLatch latch = RxCountDownLatch.of(client.getCountDownLatch(name));
        await(latch.trySetCount(1));
        Disposable waiting = latch.await().subscribe();
        Disposable timed = latch.await(LONG_WAIT).subscribe();
        awaitWaiters(2);
        waiting.dispose();
        timed.dispose();
        awaitWaiters(0);
        assertEquals(1, await(latch.getCount()), "a disposed await changed the count");
        assertTrue(await(latch.delete()));
    }
}
