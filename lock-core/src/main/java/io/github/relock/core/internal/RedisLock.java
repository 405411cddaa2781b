package io.github.relock.core.internal;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.LockTimeoutException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.Script;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.function.Function;

/**
 * Redisson-compatible reentrant lock (spec 2.1, 5.1-5.3): hash {@code N}, owner field
 * {@code <clientId>:<threadId>}, channel {@code redisson_lock__channel:{N}}. See {@link Waiters}
 * for the waiting design and {@link Renewal} for the watchdog.
 *
 * <p>Thread-safety: safe for use by several threads; it holds no per-object state beyond its name.
 */
class RedisLock implements DistributedLock {
    final DefaultLockClient client;
    final String name;
    final String channel;
    private final List<String> keys;
    private final List<String> releaseKeys;

    RedisLock(DefaultLockClient client, String name) {
        this.client = client;
        this.name = name;
        this.channel = Keys.lockChannel(name);
        this.keys = List.of(name);
        this.releaseKeys = List.of(name, channel);
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public String toString() {
        return "RedisLock[" + name + "]";
    }

    // ---------------------------------------------------------------- sync, thread-bound

    @Override
    public void lock() {
        acquireUninterruptibly(Args.WATCHDOG, currentThreadId());
    }

    @Override
    public void lock(long leaseTime, TimeUnit unit) {
        acquireUninterruptibly(Args.leaseMs(leaseTime, unit), currentThreadId());
    }

    @Override
    public void lock(Duration leaseTime) {
        acquireUninterruptibly(Args.leaseMs(leaseTime), currentThreadId());
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquire(Args.FOREVER, Args.WATCHDOG, currentThreadId(), true);
    }

    @Override
    public void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
        acquire(Args.FOREVER, Args.leaseMs(leaseTime, unit), currentThreadId(), true);
    }

    @Override
    public boolean tryLock() {
        client.ensureOpen();
        return tryAcquireOnce(Args.WATCHDOG, currentThreadId(), false) == null;
    }

    @Override
    public boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException {
        return acquire(Args.waitMs(waitTime, unit), Args.WATCHDOG, currentThreadId(), true);
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        long lease = Args.leaseMs(leaseTime, unit);
        return acquire(Args.waitMs(waitTime, unit), lease, currentThreadId(), true);
    }

    @Override
    public boolean tryLock(Duration waitTime) throws InterruptedException {
        return acquire(Args.waitMs(waitTime), Args.WATCHDOG, currentThreadId(), true);
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long lease = Args.leaseMs(leaseTime);
        return acquire(Args.waitMs(waitTime), lease, currentThreadId(), true);
    }

    @Override
    public void unlock() {
        release(currentThreadId());
    }

    @Override
    public boolean forceUnlock() {
        client.ensureOpen();
        Object r = client.eval(forceScript(), forceKeys(), forceArgs());
        client.renewal().forceReleased(name);
        return Long.valueOf(1).equals(r);
    }

    @Override
    public boolean isLocked() {
        return state("").exists;
    }

    @Override
    public boolean isHeldByThread(long threadId) {
        return state(field(threadId)).count > 0;
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return isHeldByThread(currentThreadId());
    }

    @Override
    public int getHoldCount() {
        return state(field(currentThreadId())).count;
    }

    @Override
    public long remainTimeToLive() {
        return state("").pttl;
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("newCondition() is not supported by distributed locks: "
                + "a condition needs its own protocol; use a Redis-backed queue or latch instead");
    }

    // ---------------------------------------------------------------- leases

    @Override
    public LockLease acquire() throws InterruptedException {
        long id = DefaultLockClient.nextLeaseId();
        acquire(Args.FOREVER, Args.WATCHDOG, id, true);
        return lease(id);
    }

    @Override
    public LockLease acquire(Duration waitTime) throws InterruptedException {
        return acquireLease(Args.waitMs(waitTime), Args.WATCHDOG);
    }

    @Override
    public LockLease acquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long lease = Args.leaseMs(leaseTime);
        return acquireLease(Args.waitMs(waitTime), lease);
    }

    @Override
    public CompletableFuture<LockLease> acquireAsync(Duration waitTime, Duration leaseTime) {
        long wait = Args.waitMs(waitTime);
        long lease = leaseTime == null ? Args.WATCHDOG : Args.leaseMs(leaseTime);
        long id = DefaultLockClient.nextLeaseId();
        return acquireAsync(wait, lease, id, ok -> {
            if (!ok) {
                throw new LockTimeoutException(timeoutMessage(wait));
            }
            return lease(id);
        });
    }

    private LockLease acquireLease(long waitMs, long leaseMs) throws InterruptedException {
        long id = DefaultLockClient.nextLeaseId();
        if (!acquire(waitMs, leaseMs, id, true)) {
            throw new LockTimeoutException(timeoutMessage(waitMs));
        }
        return lease(id);
    }

    private String timeoutMessage(long waitMs) {
        return "lock '" + name + "' was still held by another owner after waiting " + waitMs + " ms";
    }

    private LockLease lease(long id) {
        Hold h = client.renewal().get(name, field(id));
        if (h == null) { // lost between acquisition and here (client closed, key deleted): report honestly
            h = new Hold(name, field(id), id, name);
            h.lostReason = client.isClosed() ? LockLostEvent.Reason.CLIENT_CLOSED : LockLostEvent.Reason.NOT_HELD;
            h.lost = true;
        }
        return new LeaseHandle(this, h);
    }

    // ---------------------------------------------------------------- async (Redisson RLockAsync)

    @Override
    public CompletableFuture<Void> lockAsync() {
        return lockAsync(-1, TimeUnit.MILLISECONDS, currentThreadId());
    }

    @Override
    public CompletableFuture<Void> lockAsync(long threadId) {
        return lockAsync(-1, TimeUnit.MILLISECONDS, threadId);
    }

    @Override
    public CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit) {
        return lockAsync(leaseTime, unit, currentThreadId());
    }

    @Override
    public CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit, long threadId) {
        long lease = Args.leaseMs(leaseTime, unit);
        return acquireAsync(Args.FOREVER, lease, threadId, ok -> null);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync() {
        return tryLockAsync(currentThreadId());
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long threadId) {
        return acquireAsync(0, Args.WATCHDOG, threadId, Boolean::valueOf);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, TimeUnit unit) {
        return acquireAsync(Args.waitMs(waitTime, unit), Args.WATCHDOG, currentThreadId(), Boolean::valueOf);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit) {
        return tryLockAsync(waitTime, leaseTime, unit, currentThreadId());
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long threadId) {
        long lease = Args.leaseMs(leaseTime, unit);
        return acquireAsync(Args.waitMs(waitTime, unit), lease, threadId, Boolean::valueOf);
    }

    @Override
    public CompletableFuture<Void> unlockAsync() {
        return unlockAsync(currentThreadId());
    }

    @Override
    public CompletableFuture<Void> unlockAsync(long threadId) {
        client.ensureOpen();
        String field = field(threadId);
        return client.evalAsync(releaseScript(), releaseKeys(), beginRelease(field))
                .handle((reply, error) -> {
                    if (error != null) {
                        client.renewal().releaseFailed(name, field); // outcome unknown: stop renewing
                        throw asRuntime(DefaultLockClient.unwrap(error));
                    }
                    afterRelease(field, threadId, (Long) reply);
                    return null;
                });
    }

    @Override
    public CompletableFuture<Boolean> forceUnlockAsync() {
        client.ensureOpen();
        return client.evalAsync(forceScript(), forceKeys(), forceArgs())
                .thenApply(r -> {
                    client.renewal().forceReleased(name);
                    return Long.valueOf(1).equals(r);
                });
    }

    @Override
    public CompletableFuture<Boolean> isLockedAsync() {
        return stateAsync("").thenApply(s -> s.exists);
    }

    @Override
    public CompletableFuture<Boolean> isHeldByThreadAsync(long threadId) {
        return stateAsync(field(threadId)).thenApply(s -> s.count > 0);
    }

    @Override
    public CompletableFuture<Integer> getHoldCountAsync(long threadId) {
        return stateAsync(field(threadId)).thenApply(s -> s.count);
    }

    @Override
    public CompletableFuture<Long> remainTimeToLiveAsync() {
        return stateAsync("").thenApply(s -> s.pttl);
    }

    // ---------------------------------------------------------------- engine

    String field(long ownerId) {
        return Keys.ownerField(client.clientId(), ownerId);
    }

    private static long currentThreadId() {
        return Thread.currentThread().getId();
    }

    // ---- protocol hooks: the reentrant lock's scripts; FairRedisLock overrides them ----

    /** @return the channel an owner waits on */
    String waitChannel(long ownerId) {
        return channel;
    }

    Script acquireScript() {
        return Scripts.LOCK_ACQUIRE;
    }

    List<String> acquireKeys() {
        return keys;
    }

    /** @param queue whether a failed attempt joins a wait queue (fair lock); false for single attempts */
    List<String> acquireArgs(long ttlMs, String field, boolean queue) {
        return List.of(Long.toString(ttlMs), field);
    }

    Script releaseScript() {
        return Scripts.LOCK_RELEASE;
    }

    List<String> releaseKeys() {
        return releaseKeys;
    }

    List<String> releaseArgs(long ttlMs, String field) {
        return List.of(Long.toString(ttlMs), field, client.publishMode());
    }

    Script forceScript() {
        return Scripts.LOCK_FORCE_RELEASE;
    }

    List<String> forceKeys() {
        return releaseKeys;
    }

    List<String> forceArgs() {
        return List.of(client.publishMode());
    }

    /** A waiter gave up (timed out, interrupted, failed): the fair lock leaves its queue. */
    CompletableFuture<Void> giveUp(long ownerId) {
        return CompletableFuture.completedFuture(null);
    }

    /** Longest pause between polls while queued, in ms (the fair lock refreshes its place). */
    long maxPollIntervalMs() {
        return Long.MAX_VALUE;
    }

    // ---- the engine ----

    /**
     * Marks the hold as being released (so a renewal miss meanwhile is not a loss) and returns the
     * release script's arguments: the TTL to keep when holds remain is the hold's own lease.
     */
    private List<String> beginRelease(String field) {
        Hold h = client.renewal().get(name, field);
        long ttl = client.watchdogMs();
        if (h != null) {
            h.releasing = true;
            if (!h.watchdog()) {
                ttl = h.leaseMs;
            }
        }
        return releaseArgs(ttl, field);
    }

    private long ttlArg(long leaseMs) {
        return leaseMs == Args.WATCHDOG ? client.watchdogMs() : leaseMs;
    }

    /** One attempt on the calling thread; registers the hold on success. @return null if acquired, else the ms to wait */
    private Long tryAcquireOnce(long leaseMs, long ownerId, boolean queue) {
        String field = field(ownerId);
        long sentAt = System.nanoTime();
        Object reply = client.eval(acquireScript(), acquireKeys(), acquireArgs(ttlArg(leaseMs), field, queue));
        return onAttempt(reply, leaseMs, ownerId, field, sentAt);
    }

    private CompletableFuture<Long> tryAcquireOnceAsync(long leaseMs, long ownerId, boolean queue) {
        String field = field(ownerId);
        long sentAt = System.nanoTime();
        return client.evalAsync(acquireScript(), acquireKeys(), acquireArgs(ttlArg(leaseMs), field, queue))
                .thenApply(reply -> onAttempt(reply, leaseMs, ownerId, field, sentAt));
    }

    /** Longest pause between polls when the lock is free but not ours to take (a fair queue's head goes first). */
    private static final long MAX_BACKOFF_MS = 100;

    /**
     * How long to wait after an attempt that answered {@code ttl}, given {@code remaining} ns.
     *
     * @param idlePolls how many attempts in a row answered 0 (free, but another waiter's turn): a
     *     dead fair-queue head makes waiters back off up to {@link #MAX_BACKOFF_MS}, not spin
     */
    private long waitNanos(long ttl, long remaining, int idlePolls) {
        long ms = ttl >= 0 ? ttl : client.watchdogMs() / 3; // -1: a key without expiry; poll at the renewal rate
        long floor = Math.min(MAX_BACKOFF_MS, 2L << Math.min(idlePolls, 6));
        ms = Math.max(floor, Math.min(ms, maxPollIntervalMs()));
        return Math.min(TimeUnit.MILLISECONDS.toNanos(ms), remaining);
    }

    private Long onAttempt(Object reply, long leaseMs, long ownerId, String field, long sentAt) {
        if (reply == null) {
            if (client.renewal().acquired(name, field, ownerId, name, leaseMs, sentAt) == null) {
                // The client closed while the script ran: register nothing, give the lock back if we still can.
                client.evalAsync(releaseScript(), releaseKeys(), releaseArgs(ttlArg(leaseMs), field))
                        .exceptionally(t -> null);
                throw new IllegalStateException("this LockClient (" + client.clientId()
                        + ") was closed while acquiring lock '" + name + "'");
            }
            return null;
        }
        return (Long) reply;
    }

    private void release(long ownerId) {
        client.ensureOpen();
        String field = field(ownerId);
        List<String> args = beginRelease(field);
        Object reply;
        try {
            reply = client.eval(releaseScript(), releaseKeys(), args);
        } catch (RuntimeException e) {
            client.renewal().releaseFailed(name, field); // outcome unknown: stop renewing; it expires if it never ran
            throw e;
        }
        afterRelease(field, ownerId, (Long) reply);
    }

    void releaseLease(long ownerId) {
        release(ownerId);
    }

    /** For composites: acquire for {@code ownerId} without blocking ({@code waitMs} 0 = one attempt). */
    CompletableFuture<Boolean> acquireFor(long waitMs, long leaseMs, long ownerId) {
        return acquireAsync(waitMs, leaseMs, ownerId, Boolean::valueOf);
    }

    /** For composites: set the TTL of this owner's hold to {@code leaseMs}. */
    CompletableFuture<Boolean> expireFor(long leaseMs, long ownerId) {
        String field = field(ownerId);
        return client.evalAsync(Scripts.LOCK_EXPIRE, List.of(name), List.of(Long.toString(leaseMs), field))
                .thenApply(r -> {
                    boolean held = Long.valueOf(1).equals(r);
                    if (held) {
                        client.renewal().acquiredLeaseChanged(name, field, leaseMs);
                    }
                    return held;
                });
    }

    /** For composites: the hold this client registered for {@code ownerId}, or null. */
    Hold holdOf(long ownerId) {
        return client.renewal().get(name, field(ownerId));
    }

    private void afterRelease(String field, long ownerId, long answer) {
        client.renewal().released(name, field, answer);
        if (answer < 0) {
            throw new IllegalMonitorStateException("attempt to unlock lock '" + name
                    + "', not locked by current thread by node id: " + client.clientId() + " thread-id: " + ownerId
                    + (answer == -1
                            ? ": the lock is free (its lease expired or it was force-unlocked)"
                            : ": it is held by another owner"));
        }
    }

    private void acquireUninterruptibly(long leaseMs, long ownerId) {
        try {
            acquire(Args.FOREVER, leaseMs, ownerId, false);
        } catch (InterruptedException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /**
     * The sync wait (spec 5.1/5.2): attempt; subscribe; attempt again; then wait on the entry's
     * semaphore for at most the returned TTL (or the time left), and repeat.
     *
     * @param waitMs {@link Args#FOREVER}, 0 for one attempt, or the longest wait
     * @param interruptible whether an interrupt aborts the wait; if not, the status is restored after
     * @return whether the lock was acquired
     */
    private boolean acquire(long waitMs, long leaseMs, long ownerId, boolean interruptible)
            throws InterruptedException {
        client.ensureOpen();
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring lock '" + name + "'");
        }
        long start = System.nanoTime();
        boolean queue = waitMs != 0;
        Long firstTtl;
        try {
            firstTtl = tryAcquireOnce(leaseMs, ownerId, queue);
        } catch (RuntimeException e) {
            if (queue) {
                awaitGiveUp(ownerId); // the attempt may have joined the fair queue before it failed
            }
            throw e;
        }
        if (firstTtl == null) {
            return true;
        }
        if (!queue) {
            return false;
        }
        boolean forever = waitMs == Args.FOREVER;
        long deadline = forever ? 0 : start + TimeUnit.MILLISECONDS.toNanos(waitMs);
        boolean interrupted = false;
        boolean acquired = false;
        Waiters.Entry entry = client.waiters().join(waitChannel(ownerId));
        try {
            long subscribeBudget = client.options().subscriptionTimeout().toNanos();
            if (!forever) {
                subscribeBudget = Math.min(subscribeBudget, deadline - System.nanoTime());
            }
            while (true) {
                try {
                    entry.subscribed.get(Math.max(0, subscribeBudget), TimeUnit.NANOSECONDS);
                    break;
                } catch (InterruptedException e) {
                    if (interruptible) {
                        throw e;
                    }
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw asRuntime(DefaultLockClient.unwrap(e));
                } catch (TimeoutException e) {
                    if (!forever && deadline - System.nanoTime() <= 0) {
                        return false;
                    }
                    throw new RedisUnavailableException("subscription to " + channel + " not confirmed within "
                            + client.options().subscriptionTimeout().toMillis() + " ms");
                }
            }
            int idlePolls = 0;
            while (true) {
                client.ensureOpen();
                Long ttl = tryAcquireOnce(leaseMs, ownerId, true);
                if (ttl == null) {
                    acquired = true;
                    return true;
                }
                idlePolls = ttl == 0 ? idlePolls + 1 : 0;
                long remaining = forever ? Long.MAX_VALUE : deadline - System.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
                try {
                    entry.latch.tryAcquire(waitNanos(ttl, remaining, idlePolls), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    if (interruptible) {
                        throw e;
                    }
                    interrupted = true;
                }
            }
        } finally {
            client.waiters().leave(entry);
            if (!acquired) {
                awaitGiveUp(ownerId);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Leaves the wait queue (fair lock) before returning, so a next attempt by the same owner cannot race it. */
    private void awaitGiveUp(long ownerId) {
        boolean interrupted = false;
        CompletableFuture<Void> done = giveUpQuietly(ownerId);
        long deadline = System.nanoTime() + client.options().commandTimeout().toNanos();
        while (true) {
            try {
                done.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException | TimeoutException e) {
                break; // logged by giveUpQuietly, or still running: the entry expires on its own
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private CompletableFuture<Void> giveUpQuietly(long ownerId) {
        return giveUp(ownerId).exceptionally(t -> {
            System.getLogger(RedisLock.class.getName()).log(System.Logger.Level.DEBUG,
                    "leaving the wait queue of ''" + name + "'' failed; the entry expires on its own", t);
            return null;
        });
    }

    /**
     * The async wait (spec 5.3): never parks a thread; continuations run on driver or timer threads.
     * The future returned is the caller's and the one the engine watches: cancelling it (or
     * {@code orTimeout}, or closing the client) reaches the wait at once, and an acquisition that
     * lands after that is given back.
     *
     * @param outcome maps "acquired?" to the caller's value; may throw (e.g. a timeout for leases)
     */
    private <T> CompletableFuture<T> acquireAsync(long waitMs, long leaseMs, long ownerId,
            Function<Boolean, T> outcome) {
        CompletableFuture<T> caller = new CompletableFuture<>();
        try {
            client.ensureOpen();
        } catch (IllegalStateException e) {
            caller.completeExceptionally(e);
            return caller;
        }
        client.track(caller);
        new AsyncWait<>(caller, outcome, waitMs, leaseMs, ownerId).start();
        return caller;
    }

    /**
     * One async waiter's state machine: attempt; subscribe; attempt / wait-for-wake-or-timer, repeat.
     *
     * <p>Ending. Exactly one party ends the wait, whoever sets {@code finished} first: the machine
     * (acquired, timed out, failed) or the caller (cancel, orTimeout, client closed), seen through
     * the caller's future. Cleaning up after the caller means leaving the channel entry and, for a
     * fair lock, the queue; it must not overtake an attempt already sent (a fair attempt re-joins
     * the queue), so the two sides meet Dekker-style: an attempt sets {@code inFlight} then checks
     * {@code finished}; the caller's side sets {@code finished} then checks {@code inFlight}. The
     * side that sees the other cleans up, and a reply that arrives after the end gives back what it
     * acquired.
     */
    private final class AsyncWait<T> {
        private final CompletableFuture<T> caller;
        private final Function<Boolean, T> outcome;
        private final long deadline;
        private final boolean forever;
        private final boolean queue;
        private final long leaseMs;
        private final long ownerId;
        private final AtomicBoolean finished = new AtomicBoolean();
        private final AtomicBoolean inFlight = new AtomicBoolean();
        private final AtomicBoolean cleaned = new AtomicBoolean();
        private final AtomicBoolean left = new AtomicBoolean();
        private volatile Waiters.Entry entry;
        private volatile Runnable listener;
        private volatile ScheduledFuture<?> timer;
        private int idlePolls; // touched by one continuation at a time

        AsyncWait(CompletableFuture<T> caller, Function<Boolean, T> outcome, long waitMs, long leaseMs, long ownerId) {
            this.caller = caller;
            this.outcome = outcome;
            this.forever = waitMs == Args.FOREVER;
            this.queue = waitMs != 0;
            this.deadline = forever || !queue ? 0 : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
            this.leaseMs = leaseMs;
            this.ownerId = ownerId;
        }

        void start() {
            caller.whenComplete((v, t) -> {
                if (finished.compareAndSet(false, true)) { // ended by the caller, not by us
                    stopWaiting();
                    cleanUpIfIdle();
                }
            });
            send(queue);
        }

        /** Sends one attempt unless the wait has ended. */
        private void send(boolean joinQueue) {
            inFlight.set(true);
            if (finished.get()) {
                inFlight.set(false);
                cleanUpIfIdle();
                return;
            }
            CompletableFuture<Long> attempt;
            try {
                attempt = tryAcquireOnceAsync(leaseMs, ownerId, joinQueue);
            } catch (RuntimeException e) {
                attempt = CompletableFuture.failedFuture(e);
            }
            attempt.whenComplete(this::onReply);
        }

        private void onReply(Long ttl, Throwable error) {
            inFlight.set(false);
            if (finished.get()) { // the caller left while this attempt was out
                if (error == null && ttl == null) {
                    giveBack();
                }
                cleanUpIfIdle();
                return;
            }
            if (error != null) {
                finish(null, DefaultLockClient.unwrap(error));
            } else if (ttl == null) {
                acquired();
            } else if (!queue) {
                finish(false, null);
            } else if (entry == null) {
                subscribe(ttl);
            } else {
                waitOrGiveUp(ttl);
            }
        }

        private void subscribe(long firstTtl) {
            Waiters.Entry e = client.waiters().join(waitChannel(ownerId));
            entry = e;
            if (finished.get()) { // the caller left while we joined: the cleanup may have missed the entry
                leave();
                return;
            }
            long budget = client.options().subscriptionTimeout().toNanos();
            if (!forever) {
                budget = Math.min(budget, Math.max(0, deadline - System.nanoTime()));
            }
            ScheduledFuture<?> timeout = client.schedule(() -> {
                if (!e.subscribed.isDone()) {
                    if (!forever && deadline - System.nanoTime() <= 0) {
                        finish(false, null);
                    } else {
                        finish(null, new RedisUnavailableException("subscription to " + e.channel
                                + " not confirmed within " + client.options().subscriptionTimeout().toMillis() + " ms"));
                    }
                }
            }, budget, this::closed);
            e.subscribed.whenComplete((sub, error) -> {
                if (timeout != null) {
                    timeout.cancel(false);
                }
                if (error != null) {
                    finish(null, DefaultLockClient.unwrap(error));
                } else {
                    send(true); // attempt again now that no unlock can be missed
                }
            });
        }

        private void waitOrGiveUp(long ttl) {
            idlePolls = ttl == 0 ? idlePolls + 1 : 0;
            long remaining = forever ? Long.MAX_VALUE : deadline - System.nanoTime();
            if (remaining <= 0) {
                finish(false, null);
                return;
            }
            waitForWake(waitNanos(ttl, remaining, idlePolls));
        }

        private void waitForWake(long waitNanos) {
            Waiters.Entry e = entry;
            AtomicBoolean fired = new AtomicBoolean();
            Runnable onMessage = new Runnable() {
                @Override
                public void run() {
                    if (!finished.get() && fired.compareAndSet(false, true)) {
                        ScheduledFuture<?> t = timer;
                        if (t != null) {
                            t.cancel(false);
                        }
                        send(true);
                    } else {
                        e.wakeOne(); // this wake-up was meant for someone still waiting: pass it on
                    }
                }
            };
            listener = onMessage;
            e.listeners.add(onMessage);
            timer = client.schedule(() -> {
                if (fired.compareAndSet(false, true)) {
                    e.listeners.remove(onMessage);
                    send(true);
                }
            }, waitNanos, this::closed);
            if (finished.get()) { // the caller left while we queued the listener
                stopWaiting();
                return;
            }
            // A message that arrived before the listener was queued banked a permit: use it now, or,
            // if something fired us meanwhile, hand it on instead of dropping it.
            if (e.latch.tryAcquire()) {
                if (fired.compareAndSet(false, true)) {
                    e.listeners.remove(onMessage);
                    ScheduledFuture<?> t = timer;
                    if (t != null) {
                        t.cancel(false);
                    }
                    send(true);
                } else {
                    e.wakeOne();
                }
            }
        }

        private void acquired() {
            leave();
            if (!finished.compareAndSet(false, true)) {
                giveBack();
                return;
            }
            T value;
            try {
                value = outcome.apply(true);
            } catch (RuntimeException ex) {
                giveBack();
                caller.completeExceptionally(ex);
                return;
            }
            if (!caller.complete(value)) { // cancelled after we won the race: cannot happen, but never keep it
                giveBack();
            }
        }

        /** Ends the wait without the lock: leaves the channel and the queue first, then tells the caller. */
        private void finish(Boolean value, Throwable error) {
            if (!finished.compareAndSet(false, true)) {
                return;
            }
            stopWaiting();
            cleaned.set(true);
            leave();
            (queue ? giveUpQuietly(ownerId) : CompletableFuture.<Void>completedFuture(null)).whenComplete((v, t) -> {
                if (error != null) {
                    caller.completeExceptionally(error);
                    return;
                }
                try {
                    caller.complete(outcome.apply(value));
                } catch (RuntimeException ex) {
                    caller.completeExceptionally(ex);
                }
            });
        }

        private void closed() {
            finish(null, new IllegalStateException("this LockClient (" + client.clientId()
                    + ") was closed while waiting for lock '" + name + "'"));
        }

        /** Unhooks the pending listener and timer, so a caller who left frees the channel at once. */
        private void stopWaiting() {
            Waiters.Entry e = entry;
            Runnable l = listener;
            if (e != null && l != null) {
                e.listeners.remove(l);
            }
            ScheduledFuture<?> t = timer;
            if (t != null) {
                t.cancel(false);
            }
        }

        /** After the caller left: leave the channel and the fair queue, unless an attempt is still out. */
        private void cleanUpIfIdle() {
            if (!inFlight.get() && cleaned.compareAndSet(false, true)) {
                leave();
                if (queue) {
                    giveUpQuietly(ownerId);
                }
            }
        }

        /** An acquisition nobody will use: release it (the hold was registered, so this balances it). */
        private void giveBack() {
            if (client.isClosed()) {
                return; // onAttempt registered nothing and already gave it back
            }
            unlockAsync(ownerId).exceptionally(t -> {
                System.getLogger(RedisLock.class.getName()).log(System.Logger.Level.WARNING,
                        "giving back lock ''" + name + "'' after its caller left failed; it expires on its own", t);
                return null;
            });
        }

        private void leave() {
            Waiters.Entry e = entry;
            if (e != null && left.compareAndSet(false, true)) {
                client.waiters().leave(e);
            }
        }
    }

    // ---------------------------------------------------------------- state reads

    private record State(boolean exists, int count, long pttl) {
    }

    private State state(String field) {
        client.ensureOpen();
        return toState(client.eval(Scripts.LOCK_STATE, keys, List.of(field)));
    }

    private CompletableFuture<State> stateAsync(String field) {
        return client.evalAsync(Scripts.LOCK_STATE, keys, List.of(field)).thenApply(RedisLock::toState);
    }

    private static State toState(Object reply) {
        List<?> r = (List<?>) reply;
        return new State(((Long) r.get(0)) == 1L, ((Long) r.get(1)).intValue(), (Long) r.get(2));
    }

    static RuntimeException asRuntime(Throwable t) {
        if (t instanceof RuntimeException re) {
            return re;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new RedisUnavailableException("lock operation failed: " + t, t);
    }
}
