package io.github.relock.core.internal;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/*
 * Design: MultiLock and RedLock (spec 6.1, 6.2). No wire format of their own: n ordinary locks,
 * possibly on different clients and servers, taken one after another by one owner id.
 *
 * The acquisition runs as an asynchronous state machine (Attempt), so the async API parks no
 * thread; the sync API waits on it. Per lock it waits min(perLockWait, time left), with
 * perLockWait = the whole wait (Multi) or wait / n (Red). While waiting, leases are doubled
 * (2 x wait) so early locks cannot expire while later ones are awaited; once all are taken the
 * caller's lease is applied to each. A failure beyond the tolerated count (0 for Multi,
 * n - (n/2 + 1) for Red) releases what was taken and starts over while time is left; RedLock stops
 * as soon as a quorum (n/2 + 1) is held. An interrupted or cancelled caller aborts the machine:
 * whatever it took is released, whichever side sees the abort first.
 */
final class MultiRedisLock implements DistributedLock {
    private final List<RedisLock> locks;
    private final boolean red;
    private final String name;

    MultiRedisLock(List<DistributedLock> locks, boolean red) {
        Objects.requireNonNull(locks, "locks must not be null");
        String kind = red ? "RedLock" : "MultiLock";
        if (locks.isEmpty()) {
            throw new IllegalArgumentException(kind + " needs at least one lock, got none");
        }
        List<RedisLock> own = new ArrayList<>(locks.size());
        for (DistributedLock l : locks) {
            Objects.requireNonNull(l, () -> kind + " locks must not contain null: " + locks);
            if (!(l instanceof RedisLock r)) {
                throw new IllegalArgumentException(kind + " takes locks from relock LockClients (getLock/getFairLock), got "
                        + l.getClass().getName());
            }
            own.add(r);
        }
        this.locks = List.copyOf(own);
        this.red = red;
        this.name = kind + own.stream().map(RedisLock::getName).collect(Collectors.joining(", ", "[", "]"));
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public String toString() {
        return name;
    }

    private int failedLocksLimit() {
        return red ? locks.size() - (locks.size() / 2 + 1) : 0;
    }

    private long perLockWait(long remainMs) {
        return red ? Math.max(remainMs / locks.size(), 1) : remainMs;
    }

    // ------------------------------------------------------------------ the state machine

    /** One acquisition attempt over all locks; completes true when held. */
    private final class Attempt {
        final long waitMs;
        final long leaseMs;
        final long owner;
        final long newLease;
        final long perLockWait;
        final long deadline;
        final CompletableFuture<Boolean> result = new CompletableFuture<>();
        final AtomicBoolean aborted = new AtomicBoolean();
        final List<RedisLock> acquired = new ArrayList<>();
        int failLimit = failedLocksLimit();
        int index;

        Attempt(long waitMs, long leaseMs, long owner) {
            this.waitMs = waitMs;
            this.leaseMs = leaseMs;
            this.owner = owner;
            this.newLease = leaseMs == Args.WATCHDOG ? Args.WATCHDOG : (waitMs > 0 ? Math.max(2 * waitMs, leaseMs) : leaseMs);
            this.perLockWait = waitMs > 0 ? perLockWait(waitMs) : 0;
            this.deadline = waitMs > 0 ? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs) : 0;
        }

        CompletableFuture<Boolean> start() {
            step();
            return result;
        }

        /** Aborts (caller interrupted or cancelled); releases whatever is or will be held. */
        void abort() {
            aborted.set(true);
            if (result.isDone() && !result.isCompletedExceptionally() && Boolean.TRUE.equals(result.getNow(false))) {
                release(locks, owner, true);
            }
        }

        private long remainingMs() {
            return TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        }

        private void step() {
            if (aborted.get()) {
                release(acquired, owner, true).whenComplete((v, t) -> result.complete(false));
                return;
            }
            if (index == locks.size()) {
                succeed();
                return;
            }
            RedisLock lock = locks.get(index);
            long wait = waitMs > 0 ? Math.max(0, Math.min(perLockWait, remainingMs())) : 0;
            lock.acquireFor(wait, newLease, owner).whenComplete((ok, error) -> {
                if (error != null && DefaultLockClient.unwrap(error) instanceof io.github.relock.api.RedisUnavailableException) {
                    lock.unlockAsync(owner).exceptionally(t -> null); // it may have been taken before the failure
                }
                if (error == null && ok) {
                    acquired.add(lock);
                } else {
                    if (locks.size() - acquired.size() == failedLocksLimit() && red) {
                        succeed();
                        return;
                    }
                    if (failLimit == 0) {
                        List<RedisLock> undo = new ArrayList<>(acquired);
                        acquired.clear();
                        release(undo, owner, true).whenComplete((v, t) -> {
                            if (waitMs <= 0 || remainingMs() <= 0) {
                                result.complete(false);
                                return;
                            }
                            failLimit = failedLocksLimit();
                            index = 0;
                            step();
                        });
                        return;
                    }
                    failLimit--;
                }
                if (waitMs > 0 && remainingMs() <= 0) {
                    List<RedisLock> undo = new ArrayList<>(acquired);
                    acquired.clear();
                    release(undo, owner, true).whenComplete((v, t) -> result.complete(false));
                    return;
                }
                index++;
                step();
            });
        }

        private void succeed() {
            CompletableFuture<?> applied = CompletableFuture.completedFuture(null);
            if (leaseMs != Args.WATCHDOG && newLease != leaseMs) {
                applied = CompletableFuture.allOf(acquired.stream()
                        .map(l -> l.expireFor(leaseMs, owner).exceptionally(t -> false))
                        .toArray(CompletableFuture[]::new));
            }
            applied.whenComplete((v, t) -> {
                if (aborted.get()) {
                    release(acquired, owner, true).whenComplete((x, y) -> result.complete(false));
                } else {
                    result.complete(true);
                }
            });
        }
    }

    /** Unlocks each lock for {@code owner}; with {@code quiet}, failures are ignored. */
    private static CompletableFuture<Void> release(List<RedisLock> which, long owner, boolean quiet) {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (RedisLock l : which) {
            CompletableFuture<Void> f = l.unlockAsync(owner);
            all.add(quiet ? f.exceptionally(t -> null) : f);
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    private CompletableFuture<Boolean> tryAcquireAsync(long waitMs, long leaseMs, long owner) {
        try {
            return new Attempt(waitMs, leaseMs, owner).start();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** lock(): repeat attempts with Redisson's randomised per-attempt wait until held. */
    private CompletableFuture<Void> lockAsyncLoop(long leaseMs, long owner) {
        long base = locks.size() * 1500L;
        long w;
        if (leaseMs == Args.WATCHDOG) {
            w = base;
        } else if (leaseMs <= base) {
            w = ThreadLocalRandom.current().nextLong(Math.max(1, leaseMs / 2), Math.max(2, leaseMs));
        } else {
            w = ThreadLocalRandom.current().nextLong(base, leaseMs);
        }
        return tryAcquireAsync(w, leaseMs, owner)
                .thenCompose(ok -> ok ? CompletableFuture.<Void>completedFuture(null) : lockAsyncLoop(leaseMs, owner));
    }

    private boolean awaitAttempt(long waitMs, long leaseMs, long owner) throws InterruptedException {
        Attempt attempt = new Attempt(waitMs, leaseMs, owner);
        CompletableFuture<Boolean> f = attempt.start();
        try {
            return f.get();
        } catch (InterruptedException e) {
            attempt.abort();
            throw e;
        } catch (ExecutionException e) {
            throw RedisLock.asRuntime(DefaultLockClient.unwrap(e));
        }
    }

    private void lockUninterruptibly(long leaseMs, long owner) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    lockInterruptibly(leaseMs, owner);
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void lockInterruptibly(long leaseMs, long owner) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring " + name);
        }
        long base = locks.size() * 1500L;
        while (true) {
            long w = leaseMs == Args.WATCHDOG ? base
                    : leaseMs <= base ? ThreadLocalRandom.current().nextLong(Math.max(1, leaseMs / 2), Math.max(2, leaseMs))
                    : ThreadLocalRandom.current().nextLong(base, leaseMs);
            if (awaitAttempt(w, leaseMs, owner)) {
                return;
            }
        }
    }

    private static long tid() {
        return Thread.currentThread().getId();
    }

    // ------------------------------------------------------------------ sync API

    @Override
    public void lock() {
        lockUninterruptibly(Args.WATCHDOG, tid());
    }

    @Override
    public void lock(long leaseTime, TimeUnit unit) {
        lockUninterruptibly(Args.leaseMs(leaseTime, unit), tid());
    }

    @Override
    public void lock(Duration leaseTime) {
        lockUninterruptibly(Args.leaseMs(leaseTime), tid());
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        lockInterruptibly(Args.WATCHDOG, tid());
    }

    @Override
    public void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
        lockInterruptibly(Args.leaseMs(leaseTime, unit), tid());
    }

    @Override
    public boolean tryLock() {
        try {
            return awaitAttempt(0, Args.WATCHDOG, tid());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException {
        return awaitAttempt(Args.waitMs(waitTime, unit), Args.WATCHDOG, tid());
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        long lease = Args.leaseMs(leaseTime, unit);
        return awaitAttempt(Args.waitMs(waitTime, unit), lease, tid());
    }

    @Override
    public boolean tryLock(Duration waitTime) throws InterruptedException {
        return awaitAttempt(Args.waitMs(waitTime), Args.WATCHDOG, tid());
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long lease = Args.leaseMs(leaseTime);
        return awaitAttempt(Args.waitMs(waitTime), lease, tid());
    }

    @Override
    public void unlock() {
        unlockOwner(tid());
    }

    private void unlockOwner(long owner) {
        if (red) {
            release(locks, owner, true).join();
            return;
        }
        RuntimeException first = null;
        for (RedisLock l : locks) {
            try {
                l.unlockAsync(owner).join();
            } catch (java.util.concurrent.CompletionException e) {
                if (first == null) {
                    first = RedisLock.asRuntime(DefaultLockClient.unwrap(e));
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private UnsupportedOperationException unsupported(String what) {
        return new UnsupportedOperationException(what + " is not supported by " + (red ? "RedLock" : "MultiLock")
                + ": it spans several locks that may be held by different owners; ask the individual locks");
    }

    @Override
    public boolean forceUnlock() {
        throw unsupported("forceUnlock()");
    }

    @Override
    public boolean isLocked() {
        throw unsupported("isLocked()");
    }

    @Override
    public boolean isHeldByThread(long threadId) {
        for (RedisLock l : locks) {
            if (!l.isHeldByThread(threadId)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return isHeldByThread(tid());
    }

    @Override
    public int getHoldCount() {
        throw unsupported("getHoldCount()");
    }

    @Override
    public long remainTimeToLive() {
        throw unsupported("remainTimeToLive()");
    }

    @Override
    public Condition newCondition() {
        throw unsupported("newCondition()");
    }

    // ------------------------------------------------------------------ leases

    @Override
    public LockLease acquire() throws InterruptedException {
        long id = DefaultLockClient.nextLeaseId();
        lockInterruptibly(Args.WATCHDOG, id);
        return new MultiLease(id);
    }

    @Override
    public LockLease acquire(Duration waitTime) throws InterruptedException {
        long wait = Args.waitMs(waitTime);
        long id = DefaultLockClient.nextLeaseId();
        if (!awaitAttempt(wait, Args.WATCHDOG, id)) {
            throw new LockTimeoutException(name + " was still held after waiting " + wait + " ms");
        }
        return new MultiLease(id);
    }

    @Override
    public LockLease acquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long lease = Args.leaseMs(leaseTime);
        long wait = Args.waitMs(waitTime);
        long id = DefaultLockClient.nextLeaseId();
        if (!awaitAttempt(wait, lease, id)) {
            throw new LockTimeoutException(name + " was still held after waiting " + wait + " ms");
        }
        return new MultiLease(id);
    }

    @Override
    public CompletableFuture<LockLease> acquireAsync(Duration waitTime, Duration leaseTime) {
        long wait = Args.waitMs(waitTime);
        long lease = leaseTime == null ? Args.WATCHDOG : Args.leaseMs(leaseTime);
        long id = DefaultLockClient.nextLeaseId();
        return tryAcquireAsync(wait, lease, id).thenApply(ok -> {
            if (!ok) {
                throw new LockTimeoutException(name + " was still held after waiting " + wait + " ms");
            }
            return new MultiLease(id);
        });
    }

    /** A lease over the locks this multi-lock holds for one synthetic owner id. */
    private final class MultiLease implements LockLease {
        private final long id;
        private final List<Hold> holds = new ArrayList<>();
        private final AtomicBoolean released = new AtomicBoolean();
        private final AtomicBoolean lostFired = new AtomicBoolean();
        private final AtomicInteger lostCount = new AtomicInteger();
        private final List<Consumer<LockLostEvent>> callbacks = new java.util.concurrent.CopyOnWriteArrayList<>();

        MultiLease(long id) {
            this.id = id;
            for (RedisLock l : locks) {
                Hold h = l.holdOf(id);
                if (h != null) {
                    holds.add(h);
                    h.lostCallbacks.add(this::subLost);
                }
            }
        }

        private int tolerated() {
            return failedLocksLimit() - (locks.size() - holds.size());
        }

        private void subLost(LockLostEvent e) {
            if (lostCount.incrementAndGet() > tolerated() && !released.get() && lostFired.compareAndSet(false, true)) {
                LockLostEvent event = new LockLostEvent(name, e.ownerId(), id, e.reason());
                callbacks.forEach(c -> Renewal.deliver(c, event));
            }
        }

        @Override
        public String lockName() {
            return name;
        }

        @Override
        public long ownerId() {
            return id;
        }

        @Override
        public boolean isValid() {
            if (released.get()) {
                return false;
            }
            int invalid = locks.size() - holds.size();
            for (Hold h : holds) {
                if (!LeaseHandle.valid(h)) {
                    invalid++;
                }
            }
            return invalid <= failedLocksLimit();
        }

        @Override
        public LockLease onLost(Consumer<LockLostEvent> callback) {
            Objects.requireNonNull(callback, "callback must not be null");
            callbacks.add(callback);
            if (lostFired.get()) {
                Renewal.deliver(callback, new LockLostEvent(name, "", id, LockLostEvent.Reason.NOT_HELD));
            }
            return this;
        }

        @Override
        public void close() {
            if (released.compareAndSet(false, true)) {
                callbacks.clear();
                unlockOwner(id);
            }
        }
    }

    // ------------------------------------------------------------------ async API

    @Override
    public CompletableFuture<Void> lockAsync() {
        return lockAsyncLoop(Args.WATCHDOG, tid());
    }

    @Override
    public CompletableFuture<Void> lockAsync(long threadId) {
        return lockAsyncLoop(Args.WATCHDOG, threadId);
    }

    @Override
    public CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit) {
        return lockAsyncLoop(Args.leaseMs(leaseTime, unit), tid());
    }

    @Override
    public CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit, long threadId) {
        return lockAsyncLoop(Args.leaseMs(leaseTime, unit), threadId);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync() {
        return tryAcquireAsync(0, Args.WATCHDOG, tid());
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long threadId) {
        return tryAcquireAsync(0, Args.WATCHDOG, threadId);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, TimeUnit unit) {
        return tryAcquireAsync(Args.waitMs(waitTime, unit), Args.WATCHDOG, tid());
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit) {
        return tryLockAsync(waitTime, leaseTime, unit, tid());
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long threadId) {
        long lease = Args.leaseMs(leaseTime, unit);
        return tryAcquireAsync(Args.waitMs(waitTime, unit), lease, threadId);
    }

    @Override
    public CompletableFuture<Void> unlockAsync() {
        return unlockAsync(tid());
    }

    @Override
    public CompletableFuture<Void> unlockAsync(long threadId) {
        return release(locks, threadId, red);
    }

    @Override
    public CompletableFuture<Boolean> forceUnlockAsync() {
        return CompletableFuture.failedFuture(unsupported("forceUnlockAsync()"));
    }

    @Override
    public CompletableFuture<Boolean> isLockedAsync() {
        return CompletableFuture.failedFuture(unsupported("isLockedAsync()"));
    }

    @Override
    public CompletableFuture<Boolean> isHeldByThreadAsync(long threadId) {
        CompletableFuture<Boolean> all = CompletableFuture.completedFuture(true);
        for (RedisLock l : locks) {
            all = all.thenCombine(l.isHeldByThreadAsync(threadId), (a, b) -> a && b);
        }
        return all;
    }

    @Override
    public CompletableFuture<Integer> getHoldCountAsync(long threadId) {
        return CompletableFuture.failedFuture(unsupported("getHoldCountAsync()"));
    }

    @Override
    public CompletableFuture<Long> remainTimeToLiveAsync() {
        return CompletableFuture.failedFuture(unsupported("remainTimeToLiveAsync()"));
    }
}
