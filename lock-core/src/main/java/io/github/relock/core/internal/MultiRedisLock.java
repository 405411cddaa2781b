package io.github.relock.core.internal;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.core.internal.HoldRegistry.Hold;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.function.Consumer;
import java.util.function.Function;
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
 * as soon as a quorum (n/2 + 1) is held. The caller's future is the one the machine watches: an
 * interrupted, cancelled or timed-out caller stops it, the member acquisition in flight is
 * cancelled (the member gives back a late grant itself), and whatever was taken is released. The
 * single point of decision is a CAS on that future: the machine's complete(true) or the caller's
 * cancel, so success and abort can never both win. Once all are taken with an explicit lease, a
 * member whose expire answers "not held" fails the acquisition.
 */
final class MultiRedisLock extends AbstractLock {
    private final List<RedisLock> locks;
    private final boolean red;
    private final String name;

    /** @return a MultiLock: held when every one of {@code locks} is */
    static MultiRedisLock multi(List<DistributedLock> locks) {
        return new MultiRedisLock(locks, false);
    }

    /** @return a RedLock: held when a majority ({@code n/2 + 1}) of {@code locks} are */
    static MultiRedisLock red(List<DistributedLock> locks) {
        return new MultiRedisLock(locks, true);
    }

    private MultiRedisLock(List<DistributedLock> locks, boolean red) {
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
            for (RedisLock o : own) {
                if (o.client == r.client && o.name.equals(r.name)) { // one key twice: taken reentrantly, or a RedLock majority of one server
                    throw new IllegalArgumentException(kind + " takes each lock at most once, got " + o + " and " + r
                            + " of one LockClient (" + r.client.clientId() + "): both are the key '" + r.name + "'");
                }
            }
            own.add(r);
        }
        this.locks = List.copyOf(own);
        this.red = red;
        this.name = kind + own.stream().map(RedisLock::getName).collect(Collectors.joining(", ", "[", "]"));
        ensureMembersOpen();
    }

    /**
     * A member whose client was closed fails the whole lock at once, for RedLock too: a closed
     * client is the application's act, not a server failure a majority may outvote.
     */
    private void ensureMembersOpen() {
        for (RedisLock l : locks) {
            if (l.client.isClosed()) {
                throw new IllegalStateException(name + ": the LockClient (" + l.client.clientId() + ") of its lock '"
                        + l.name + "' is closed");
            }
        }
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

    /** How long a RedLock pauses before starting over after a round in which members failed with errors. */
    private static final long ERROR_RETRY_MS = 25;

    /**
     * One acquisition attempt over all locks. It completes {@code out} (true: all held by
     * {@code owner}) and watches {@code caller}, the future its caller holds: once that is done
     * (cancelled, timed out, interrupted), the attempt stops, cancels the member acquisition in
     * flight (which gives back whatever lands later) and releases what it took. Members run one
     * after another through a trampoline, so members that answer synchronously never recurse.
     * A MultiLock member that fails with an error (not merely held by someone else) fails the
     * attempt with that error. A RedLock counts an erroring member as not granting (that is what
     * it is for) and starts over while time is left, pausing {@link #ERROR_RETRY_MS} after a round
     * with errors so dead servers are not polled in a busy loop.
     */
    private final class Attempt {
        final long waitMs;
        final long ttlMs;
        final long owner;
        final long heldTtl;
        final long perLockWait;
        final long deadline;
        final CompletableFuture<?> caller;
        final CompletableFuture<Boolean> out;
        final List<RedisLock> acquired = new ArrayList<>();
        volatile CompletableFuture<Boolean> current;
        Throwable firstError;
        boolean errorThisRound;
        int failLimit = failedLocksLimit();
        int index;

        Attempt(long waitMs, long ttlMs, long owner, CompletableFuture<?> caller, CompletableFuture<Boolean> out) {
            this.waitMs = waitMs;
            this.ttlMs = ttlMs;
            this.owner = owner;
            long doubledWait = waitMs > Args.MAX_LEASE_MS / 2 ? Args.MAX_LEASE_MS : 2 * waitMs;
            this.heldTtl = ttlMs == Args.TTL_WATCHDOG ? Args.TTL_WATCHDOG : (waitMs > 0 ? Math.max(doubledWait, ttlMs) : ttlMs);
            this.perLockWait = waitMs > 0 ? perLockWait(waitMs) : 0;
            this.deadline = waitMs > 0 ? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs) : 0;
            this.caller = caller;
            this.out = out;
        }

        void start() {
            caller.whenComplete((v, t) -> {
                CompletableFuture<Boolean> c = current;
                if (c != null) {
                    c.cancel(false); // the member stops waiting and gives back a late acquisition
                }
            });
            run();
        }

        private long remainingMs() {
            return TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        }

        /** Steps through the members until one answers asynchronously (then its callback resumes here). */
        private void run() {
            while (true) {
                if (caller.isDone() && caller != out) {
                    releaseThen(acquired, () -> out.complete(false));
                    return;
                }
                if (out.isDone()) { // caller == out and it was cancelled: give everything back
                    releaseThen(acquired, () -> { });
                    return;
                }
                if (index == locks.size()) {
                    succeed();
                    return;
                }
                RedisLock lock = locks.get(index);
                long wait = waitMs > 0 ? Math.max(0, Math.min(perLockWait, remainingMs())) : 0;
                CompletableFuture<Boolean> f;
                try {
                    f = lock.acquireFor(wait, heldTtl, owner);
                } catch (RuntimeException e) {
                    f = CompletableFuture.failedFuture(e);
                }
                current = f;
                if (caller.isDone()) {
                    f.cancel(false);
                }
                if (!f.isDone()) {
                    f.whenComplete((ok, error) -> {
                        if (onMember(lock, ok, error)) {
                            run();
                        }
                    });
                    return;
                }
                Boolean ok = null;
                Throwable error = null;
                try {
                    ok = f.join();
                } catch (CompletionException | CancellationException e) {
                    error = e;
                }
                if (!onMember(lock, ok, error)) {
                    return;
                }
            }
        }

        /** @return true to go on with the next member, false if this call handed control elsewhere */
        private boolean onMember(RedisLock lock, Boolean ok, Throwable error) {
            current = null;
            boolean granted = error == null && Boolean.TRUE.equals(ok);
            if (caller.isDone()) {
                // The member was granted (or may have been) just as the caller left: its future was
                // already complete, so cancelling it gave nothing back. run() releases it with the rest.
                if (granted) {
                    acquired.add(lock);
                } else if (error != null && DefaultLockClient.unwrap(error)
                        instanceof io.github.relock.api.RedisUnavailableException) {
                    lock.unlockAsync(owner).exceptionally(t -> null);
                }
                return true;
            }
            if (granted) {
                acquired.add(lock);
            } else {
                if (error != null) {
                    Throwable cause = DefaultLockClient.unwrap(error);
                    if (firstError == null) {
                        firstError = cause;
                    }
                    errorThisRound = true;
                    if (cause instanceof io.github.relock.api.RedisUnavailableException) {
                        lock.unlockAsync(owner).exceptionally(t -> null); // it may have run before the failure
                    }
                }
                if (red && locks.size() - acquired.size() == failedLocksLimit()) {
                    succeed();
                    return false;
                }
                if (failLimit == 0) {
                    List<RedisLock> undo = new ArrayList<>(acquired);
                    acquired.clear();
                    if (firstError != null && !red) {
                        Throwable e = firstError;
                        releaseThen(undo, () -> out.completeExceptionally(e));
                        return false;
                    }
                    if (waitMs <= 0 || remainingMs() <= 0) {
                        releaseThen(undo, () -> out.complete(false));
                        return false;
                    }
                    failLimit = failedLocksLimit();
                    index = 0;
                    if (errorThisRound) { // errors answer at once: pause before asking again
                        errorThisRound = false;
                        releaseThen(undo, () -> locks.get(0).client.schedule(this::run,
                                TimeUnit.MILLISECONDS.toNanos(Math.min(ERROR_RETRY_MS, Math.max(1, remainingMs()))),
                                () -> out.completeExceptionally(new IllegalStateException(
                                        "the LockClient of " + locks.get(0).getName() + " was closed"))));
                    } else {
                        releaseThen(undo, this::run); // the failed member waited its share: no busy loop
                    }
                    return false;
                }
                failLimit--;
            }
            if (waitMs > 0 && remainingMs() <= 0 && index + 1 < locks.size()) {
                List<RedisLock> undo = new ArrayList<>(acquired);
                acquired.clear();
                releaseThen(undo, () -> out.complete(false));
                return false;
            }
            index++;
            return true;
        }

        private void succeed() {
            CompletableFuture<Boolean> applied = CompletableFuture.completedFuture(true);
            if (ttlMs != Args.TTL_WATCHDOG && heldTtl != ttlMs) {
                List<CompletableFuture<Boolean>> expires = acquired.stream()
                        .map(l -> l.expireFor(ttlMs, owner).exceptionally(t -> false)).toList();
                applied = CompletableFuture.allOf(expires.toArray(CompletableFuture[]::new)).thenApply(v -> {
                    long notHeld = expires.stream().filter(e -> !e.join()).count();
                    return locks.size() - (acquired.size() - notHeld) <= failedLocksLimit();
                });
            }
            applied.whenComplete((held, t) -> {
                if (caller.isDone() && caller != out || !Boolean.TRUE.equals(held)) {
                    List<RedisLock> undo = new ArrayList<>(acquired);
                    acquired.clear();
                    releaseThen(undo, () -> out.complete(false));
                } else if (!out.complete(true)) { // the caller left at the last moment
                    releaseThen(acquired, () -> { });
                }
            });
        }

        private void releaseThen(List<RedisLock> which, Runnable then) {
            release(which, owner, true).whenComplete((v, t) -> then.run());
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

    // ------------------------------------------------------------------ primitives

    @Override
    boolean acquire(long waitMs, long ttlMs, long owner, boolean interruptible) throws InterruptedException {
        ensureMembersOpen();
        if (waitMs == Args.WAIT_FOREVER) {
            if (interruptible) {
                lockInterruptibly(ttlMs, owner);
            } else {
                lockUninterruptibly(ttlMs, owner);
            }
            return true;
        }
        if (interruptible) {
            return awaitAttempt(waitMs, ttlMs, owner);
        }
        try {
            return awaitAttempt(waitMs, ttlMs, owner);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    <T> CompletableFuture<T> acquireAsync(long waitMs, long ttlMs, long owner, Function<Boolean, T> outcome) {
        CompletableFuture<T> caller = new CompletableFuture<>();
        try {
            ensureMembersOpen();
        } catch (IllegalStateException e) {
            caller.completeExceptionally(e);
            return caller;
        }
        if (waitMs == Args.WAIT_FOREVER) {
            nextLockAttempt(caller, ttlMs, owner, outcome);
        } else {
            CompletableFuture<Boolean> attempt = new CompletableFuture<>();
            attempt.whenComplete((ok, error) -> deliver(caller, ok, error, owner, outcome));
            try {
                new Attempt(waitMs, ttlMs, owner, caller, attempt).start();
            } catch (RuntimeException e) {
                attempt.completeExceptionally(e);
            }
        }
        return caller;
    }

    /** Hands an attempt's outcome to the caller; gives the locks back if the caller left as it succeeded. */
    private <T> void deliver(CompletableFuture<T> caller, Boolean ok, Throwable error, long owner,
                             Function<Boolean, T> outcome) {
        if (error != null) {
            caller.completeExceptionally(DefaultLockClient.unwrap(error));
            return;
        }
        T value;
        try {
            value = outcome.apply(ok);
        } catch (RuntimeException e) {
            if (ok) {
                release(locks, owner, true);
            }
            caller.completeExceptionally(e);
            return;
        }
        if (!caller.complete(value) && ok) {
            release(locks, owner, true);
        }
    }

    /** lockAsync: one attempt after another, until held, failed, or the caller left. */
    private <T> void nextLockAttempt(CompletableFuture<T> caller, long ttlMs, long owner, Function<Boolean, T> outcome) {
        CompletableFuture<Boolean> attempt = new CompletableFuture<>();
        attempt.whenComplete((ok, error) -> {
            if (error == null && !ok) {
                if (!caller.isDone()) {
                    nextLockAttempt(caller, ttlMs, owner, outcome);
                }
                return;
            }
            deliver(caller, ok, error, owner, outcome);
        });
        try {
            new Attempt(lockAttemptWaitMs(ttlMs), ttlMs, owner, caller, attempt).start();
        } catch (RuntimeException e) {
            attempt.completeExceptionally(e);
        }
    }

    @Override
    void release(long owner) {
        unlockOwner(owner);
    }

    @Override
    CompletableFuture<Void> releaseAsync(long owner) {
        return release(locks, owner, red);
    }

    @Override
    LockLease lease(long id) {
        return new MultiLease(id);
    }

    /** lock(): each attempt waits Redisson's randomised time, then starts over until held. */
    private long lockAttemptWaitMs(long ttlMs) {
        long base = locks.size() * 1500L;
        if (ttlMs == Args.TTL_WATCHDOG) {
            return base;
        }
        return ttlMs <= base ? ThreadLocalRandom.current().nextLong(Math.max(1, ttlMs / 2), Math.max(2, ttlMs))
                : ThreadLocalRandom.current().nextLong(base, ttlMs);
    }

    /**
     * Runs one attempt for a blocked caller. An interrupt cancels the attempt; if it had already
     * succeeded the locks are kept and returned (interrupt status restored), so the race between
     * the interrupt and the last member's reply never leaves members held by nobody.
     */
    private boolean awaitAttempt(long waitMs, long ttlMs, long owner) throws InterruptedException {
        CompletableFuture<Boolean> f = new CompletableFuture<>();
        new Attempt(waitMs, ttlMs, owner, f, f).start();
        try {
            return f.get();
        } catch (InterruptedException e) {
            if (f.cancel(false)) {
                throw e; // the attempt sees it and gives back everything, now or when it lands
            }
            Thread.currentThread().interrupt();
            return outcome(f);
        } catch (ExecutionException e) {
            throw RedisLock.asRuntime(DefaultLockClient.unwrap(e));
        }
    }

    private static boolean outcome(CompletableFuture<Boolean> done) {
        try {
            return done.join();
        } catch (CompletionException e) {
            throw RedisLock.asRuntime(DefaultLockClient.unwrap(e));
        }
    }

    private void lockUninterruptibly(long ttlMs, long owner) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    lockInterruptibly(ttlMs, owner);
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

    private void lockInterruptibly(long ttlMs, long owner) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring " + name);
        }
        while (true) {
            if (awaitAttempt(lockAttemptWaitMs(ttlMs), ttlMs, owner)) {
                return;
            }
        }
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

    /**
     * A lease over the locks this multi-lock holds for one synthetic owner id. A close() that
     * could not release every member (Redis unreachable) throws, leaves the lease invalid (those
     * members are no longer renewed) and may be called again: it retries only the members left.
     * expireIn and releaseAfter set the TTL of every member hold ({@link RedisLock#expireHold}).
     */
    private final class MultiLease implements LockLease {
        private final long id;
        private final List<Hold> holds = new ArrayList<>();
        private final List<RedisLock> held = new ArrayList<>(); // the lock of each of holds
        private final AtomicBoolean released = new AtomicBoolean();
        private final java.util.concurrent.locks.ReentrantLock closing = new java.util.concurrent.locks.ReentrantLock();
        private final List<RedisLock> toRelease = new java.util.concurrent.CopyOnWriteArrayList<>(locks);
        private volatile boolean releaseFailed;
        private final AtomicBoolean lostFired = new AtomicBoolean();
        private final AtomicInteger lostCount = new AtomicInteger();
        private final List<Consumer<LockLostEvent>> callbacks = new java.util.concurrent.CopyOnWriteArrayList<>();

        MultiLease(long id) {
            this.id = id;
            for (RedisLock l : locks) {
                Hold h = l.holdOf(id);
                if (h != null) {
                    holds.add(h);
                    held.add(l);
                    h.addLostCallback(this::subLost);
                }
            }
        }

        private int tolerated() {
            return failedLocksLimit() - (locks.size() - holds.size());
        }

        private void subLost(LockLostEvent e) {
            if (lostCount.incrementAndGet() > tolerated() && !released.get() && lostFired.compareAndSet(false, true)) {
                LockLostEvent event = new LockLostEvent(name, e.ownerId(), id, e.reason());
                callbacks.forEach(c -> HoldRegistry.deliver(c, event));
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
            if (released.get() || releaseFailed) {
                return false;
            }
            int invalid = locks.size() - holds.size();
            for (Hold h : holds) {
                if (!h.valid()) {
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
                HoldRegistry.deliver(callback, new LockLostEvent(name, "", id, LockLostEvent.Reason.NOT_HELD));
            }
            return this;
        }

        @Override
        public boolean expireIn(Duration ttl) {
            long ms = Args.ttlMs(ttl, "expireIn", false);
            return isValid() && expireAll(ms, false);
        }

        @Override
        public boolean releaseAfter(Duration ttl) {
            long ms = Args.ttlMs(ttl, "releaseAfter", true);
            closing.lock();
            try {
                if (released.get()) {
                    return false;
                }
                if (ms == 0) {
                    return LeaseHandle.closeIfHeld(this);
                }
                released.set(true);
                callbacks.clear();
                return expireAll(ms, true);
            } finally {
                closing.unlock();
            }
        }

        /**
         * Sets every member hold's TTL ({@link RedisLock#expireHold}). A member Redis could not be
         * asked fails a MultiLock (after every member was tried) and counts as not held for a RedLock.
         *
         * @return whether all (MultiLock) or a majority (RedLock) of the locks are still held
         */
        private boolean expireAll(long ttlMs, boolean ending) {
            int notHeld = locks.size() - holds.size();
            RuntimeException first = null;
            for (int i = 0; i < holds.size(); i++) {
                try {
                    if (!held.get(i).expireHold(holds.get(i), ttlMs, ending)) {
                        notHeld++;
                    }
                } catch (RuntimeException e) {
                    notHeld++;
                    if (!red && first == null) {
                        first = e;
                    }
                }
            }
            if (first != null) {
                throw first;
            }
            return notHeld <= failedLocksLimit();
        }

        @Override
        public void close() {
            closing.lock();
            try {
                if (released.get()) {
                    return;
                }
                callbacks.clear();
                RuntimeException first = null;
                for (RedisLock l : toRelease) {
                    try {
                        l.unlockAsync(id).join();
                        toRelease.remove(l);
                    } catch (CompletionException e) {
                        RuntimeException cause = RedisLock.asRuntime(DefaultLockClient.unwrap(e));
                        if (red || !(cause instanceof io.github.relock.api.RedisUnavailableException)) {
                            toRelease.remove(l); // not held (or RedLock: best effort): nothing to retry
                        }
                        if (!red && first == null) {
                            first = cause;
                        }
                    }
                }
                if (toRelease.isEmpty()) {
                    released.set(true);
                } else {
                    releaseFailed = true;
                }
                if (first != null) {
                    throw first;
                }
            } finally {
                closing.unlock();
            }
        }
    }

    // ------------------------------------------------------------------ async queries

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
