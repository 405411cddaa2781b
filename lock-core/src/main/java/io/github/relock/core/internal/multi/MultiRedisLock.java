package io.github.relock.core.internal.multi;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.core.internal.lock.AbstractLock;
import io.github.relock.core.internal.lock.RedisLock;
import io.github.relock.core.internal.run.ScriptRunner;
import io.github.relock.core.internal.util.Args;
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
 * thread; the blocking API waits on it. Per lock it waits min(perLockWait, time left), with
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
public final class MultiRedisLock extends AbstractLock {
    final List<RedisLock> locks;
    final boolean red;
    private final String name;

    /** @return a MultiLock: held when every one of {@code locks} is */
    public static MultiRedisLock multi(List<DistributedLock> locks) {
        return new MultiRedisLock(locks, false);
    }

    /** @return a RedLock: held when a majority ({@code n/2 + 1}) of {@code locks} are */
    public static MultiRedisLock red(List<DistributedLock> locks) {
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
                if (o.services().sameClient(r.services()) && o.getName().equals(r.getName())) { // one key twice: taken reentrantly, or a RedLock majority of one server
                    throw new IllegalArgumentException(kind + " takes each lock at most once, got " + o + " and " + r
                            + " of one LockClient (" + r.services().clientId() + "): both are the key '" + r.getName() + "'");
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
            if (l.services().isClosed()) {
                throw new IllegalStateException(name + ": the LockClient (" + l.services().clientId() + ") of its lock '"
                        + l.getName() + "' is closed");
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

    int failedLocksLimit() {
        return red ? locks.size() - (locks.size() / 2 + 1) : 0;
    }

    long perLockWait(long remainMs) {
        return red ? Math.max(remainMs / locks.size(), 1) : remainMs;
    }

    // ------------------------------------------------------------------ the state machine

    /** Unlocks each lock for {@code owner}; with {@code quiet}, failures are ignored. */
    static CompletableFuture<Void> release(List<RedisLock> which, long owner, boolean quiet) {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (RedisLock l : which) {
            CompletableFuture<Void> f = l.releaseFor(owner);
            all.add(quiet ? f.exceptionally(t -> null) : f);
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    // ------------------------------------------------------------------ primitives

    @Override
    protected boolean acquire(long waitMs, long ttlMs, long owner, boolean interruptible) throws InterruptedException {
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
    protected <T> CompletableFuture<T> acquireAsync(long waitMs, long ttlMs, long owner, Function<Boolean, T> outcome) {
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
                new MultiAttempt(this, waitMs, ttlMs, owner, caller, attempt).start();
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
            caller.completeExceptionally(ScriptRunner.unwrap(error));
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
            new MultiAttempt(this, lockAttemptWaitMs(ttlMs), ttlMs, owner, caller, attempt).start();
        } catch (RuntimeException e) {
            attempt.completeExceptionally(e);
        }
    }

    @Override
    protected void release(long owner) {
        unlockOwner(owner);
    }

    @Override
    protected CompletableFuture<Void> releaseAsync(long owner) {
        return release(locks, owner, red);
    }

    @Override
    protected LockLease lease(long id) {
        return new MultiLease(this, id);
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
        new MultiAttempt(this, waitMs, ttlMs, owner, f, f).start();
        try {
            return f.get();
        } catch (InterruptedException e) {
            if (f.cancel(false)) {
                throw e; // the attempt sees it and gives back everything, now or when it lands
            }
            Thread.currentThread().interrupt();
            return outcome(f);
        } catch (ExecutionException e) {
            throw ScriptRunner.asRuntime(ScriptRunner.unwrap(e));
        }
    }

    private static boolean outcome(CompletableFuture<Boolean> done) {
        try {
            return done.join();
        } catch (CompletionException e) {
            throw ScriptRunner.asRuntime(ScriptRunner.unwrap(e));
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
                l.releaseFor(owner).join();
            } catch (java.util.concurrent.CompletionException e) {
                if (first == null) {
                    first = ScriptRunner.asRuntime(ScriptRunner.unwrap(e));
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

    @Override
    public int addListener(io.github.relock.api.LockListener listener) {
        throw unsupported("addListener(LockListener)");
    }

    @Override
    public void removeListener(int listenerId) {
        throw unsupported("removeListener(int)");
    }

    @Override
    public CompletableFuture<Integer> addListenerAsync(io.github.relock.api.LockListener listener) {
        return CompletableFuture.failedFuture(unsupported("addListenerAsync(LockListener)"));
    }

    @Override
    public CompletableFuture<Void> removeListenerAsync(int listenerId) {
        return CompletableFuture.failedFuture(unsupported("removeListenerAsync(int)"));
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
