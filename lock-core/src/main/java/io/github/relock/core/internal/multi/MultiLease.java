package io.github.relock.core.internal.multi;

import io.github.relock.api.LockLease;
import io.github.relock.api.LockLostEvent;
import io.github.relock.api.ReleaseOutcome;
import io.github.relock.core.internal.hold.Hold;
import io.github.relock.core.internal.hold.HoldRegistry;
import io.github.relock.core.internal.lock.LeaseHandle;
import io.github.relock.core.internal.lock.RedisLock;
import io.github.relock.core.internal.run.ScriptRunner;
import io.github.relock.core.internal.util.Args;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A lease over the locks this multi-lock holds for one synthetic owner id. A close() that
 * could not release every member (Redis unreachable) throws, leaves the lease invalid (those
 * members are no longer renewed) and may be called again: it retries only the members left.
 * expireIn and releaseAfter set the TTL of every member hold ({@link RedisLock#expireHold}).
 * releaseIfHeld() answers what the members' releases found; close() is quiet for a loss already told
 * (onLost, isValid() false) and throws LockLostException for one found only by the release.
 *
 * <p>Thread-safety: thread-safe.
 */
final class MultiLease implements LockLease {
    private final MultiRedisLock multi;
    private final List<RedisLock> locks;
    private final boolean red;
    private final String name;
    private final long id;
    private final List<Hold> holds = new ArrayList<>();
    private final List<RedisLock> held = new ArrayList<>(); // the lock of each of holds
    private final AtomicBoolean released = new AtomicBoolean();
    private final java.util.concurrent.locks.ReentrantLock closing = new java.util.concurrent.locks.ReentrantLock();
    private final List<RedisLock> toRelease;
    private volatile boolean releaseFailed;
    private volatile ReleaseOutcome outcome; // what the release that ended this lease found
    private final AtomicBoolean lostFired = new AtomicBoolean();
    private final AtomicInteger lostCount = new AtomicInteger();
    private final List<Consumer<LockLostEvent>> callbacks = new java.util.concurrent.CopyOnWriteArrayList<>();

    MultiLease(MultiRedisLock multi, long id) {
        this.multi = multi;
        this.locks = multi.locks;
        this.red = multi.red;
        this.name = multi.getName();
        this.id = id;
        this.toRelease = new java.util.concurrent.CopyOnWriteArrayList<>(locks);
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
        return multi.failedLocksLimit() - (locks.size() - holds.size());
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
        return !released.get() && !releaseFailed && membersValid();
    }

    /** @return whether all (MultiLock) or enough (RedLock) members are still believed held */
    private boolean membersValid() {
        int invalid = locks.size() - holds.size();
        for (Hold h : holds) {
            if (!h.valid()) {
                invalid++;
            }
        }
        return invalid <= multi.failedLocksLimit();
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
                return releaseIfHeld() == ReleaseOutcome.RELEASED;
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
        return notHeld <= multi.failedLocksLimit();
    }

    /**
     * Whether the holder was already told the lease is gone: its loss was reported (onLost), or too
     * many members are no longer valid (isValid() answers false).
     */
    private boolean lossKnown() {
        return lostFired.get() || !membersValid();
    }

    /**
     * What a release of every member found: RELEASED when all (MultiLock) or enough (RedLock) of
     * the members this lease held were still held, else the worst a member found.
     *
     * @param found each member's answer; null for a RedLock member Redis could not be asked
     */
    private ReleaseOutcome outcome(List<ReleaseOutcome> found) {
        int notHeld = 0;
        ReleaseOutcome worst = ReleaseOutcome.RELEASED;
        for (ReleaseOutcome o : found) {
            if (o != null && o != ReleaseOutcome.RELEASED) {
                notHeld++;
                if (worst != ReleaseOutcome.HELD_BY_ANOTHER) {
                    worst = o;
                }
            }
        }
        return notHeld > Math.max(0, tolerated()) ? worst : ReleaseOutcome.RELEASED;
    }

    /** Releases every member without blocking: the same rules as {@link #releaseIfHeld()}. */
    @Override
    public CompletableFuture<ReleaseOutcome> releaseIfHeldAsync() {
        if (released.get()) {
            ReleaseOutcome o = outcome;
            return CompletableFuture.completedFuture(o == null ? ReleaseOutcome.RELEASED : o);
        }
        callbacks.clear();
        List<CompletableFuture<ReleaseOutcome>> all = new ArrayList<>();
        for (RedisLock l : toRelease) {
            all.add(l.releaseOutcomeFor(id).handle((o, t) -> {
                if (t == null) {
                    toRelease.remove(l);
                    return o;
                }
                RuntimeException cause = ScriptRunner.asRuntime(ScriptRunner.unwrap(t));
                if (red || !(cause instanceof io.github.relock.api.RedisUnavailableException)) {
                    toRelease.remove(l); // RedLock: best effort, nothing to retry
                }
                if (!red) {
                    throw cause;
                }
                return null;
            }));
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).handle((v, t) -> {
            if (toRelease.isEmpty()) {
                released.set(true);
            } else {
                releaseFailed = true;
            }
            if (t != null) {
                throw ScriptRunner.asRuntime(ScriptRunner.unwrap(t));
            }
            ReleaseOutcome o = outcome(all.stream().map(CompletableFuture::join).toList());
            outcome = o;
            return o;
        });
    }

    @Override
    public CompletableFuture<Void> closeAsync() {
        return LeaseHandle.closeAsync(this, lossKnown() || outcome != null);
    }

    @Override
    public ReleaseOutcome releaseIfHeld() {
        closing.lock();
        try {
            if (released.get()) {
                ReleaseOutcome o = outcome;
                return o == null ? ReleaseOutcome.RELEASED : o;
            }
            callbacks.clear();
            RuntimeException first = null;
            List<ReleaseOutcome> found = new ArrayList<>();
            for (RedisLock l : toRelease) {
                try {
                    found.add(l.releaseOutcomeFor(id).join());
                    toRelease.remove(l);
                } catch (CompletionException e) {
                    RuntimeException cause = ScriptRunner.asRuntime(ScriptRunner.unwrap(e));
                    if (red || !(cause instanceof io.github.relock.api.RedisUnavailableException)) {
                        toRelease.remove(l); // RedLock: best effort, nothing to retry
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
            ReleaseOutcome o = outcome(found);
            outcome = o;
            return o;
        } finally {
            closing.unlock();
        }
    }

    @Override
    public void close() {
        LeaseHandle.close(this, lossKnown() || outcome != null); // told before, or answered by an earlier release
    }

    @Override
    public Instant deadline() {
        long now = System.nanoTime();
        Instant wall = Instant.now();
        int tolerated = tolerated();
        if (!isValid() || tolerated < 0) {
            return wall;
        }
        List<Long> ends = new ArrayList<>();
        for (int i = 0; i < holds.size(); i++) {
            Hold h = holds.get(i);
            ends.add(h.valid() ? held.get(i).heldUntilNanos(h) - now : 0L);
        }
        ends.sort(null);
        // valid while at most `tolerated` held members are gone: until the (tolerated+1)-th earliest end
        long left = tolerated < ends.size() ? ends.get(tolerated) : 0L;
        return left <= 0 ? wall : wall.plusNanos(left);
    }
}

