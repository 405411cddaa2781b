package io.github.relock.core.internal.wait;

import io.github.relock.api.RedisUnavailableException;
import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.protocol.AttemptMode;
import io.github.relock.core.internal.protocol.LockProtocol;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A wait target whose "lock" is a few fields in memory: one holder field and its count, as the
 * reentrant acquire script keeps them. It answers attempts as the script would (acquired, or busy
 * with {@link #ttlMs}), records every attempt's mode, and lets a test fail attempts, hold async
 * replies, hold blocking attempts, refuse, and release the lock (with or without a message on the
 * channel).
 */
final class FakeLock implements WaitTarget {
    final LockProtocol protocol;
    final String clientId;
    String holder;
    int count;
    volatile long ttlMs = 30_000;
    final List<AttemptMode> attempts = new ArrayList<>();
    final List<Long> giveUps = new ArrayList<>();
    final List<Long> givenBack = new ArrayList<>();
    final List<Long> releasedNow = new ArrayList<>();
    final List<Long> transfersGivenBack = new ArrayList<>();
    /** Thrown by the next attempt before it "runs". */
    RuntimeException failNext;
    /** The next attempt runs, then its reply is lost. */
    boolean runThenLoseReply;
    /** Attempts answer Refused(upgrade) while set. */
    Boolean refuse;
    /** Async attempts wait for {@link #completeAsync} while set. */
    boolean holdAsync;
    final Queue<Runnable> heldReplies = new ArrayDeque<>();
    /** Blocking attempts wait for it to complete while set: the attempt is on its way to "Redis". */
    volatile CompletableFuture<Void> holdSync;
    /** While set, a give-back "runs" at once but is over only when this completes (its reply is on its way). */
    volatile CompletableFuture<Void> giveBackReply;
    /** Blocking attempts now waiting for {@link #holdSync}. */
    final AtomicInteger syncHeld = new AtomicInteger();

    FakeLock(LockProtocol protocol, String clientId) {
        this.protocol = protocol;
        this.clientId = clientId;
    }

    @Override
    public String name() {
        return protocol.name();
    }

    @Override
    public LockProtocol protocol() {
        return protocol;
    }

    @Override
    public String field(long ownerId) {
        return protocol.ownerField(clientId, ownerId);
    }

    @Override
    public Acquire attempt(long ttlMs, long ownerId, AttemptMode mode) {
        CompletableFuture<Void> gate = holdSync;
        if (gate != null) {
            syncHeld.incrementAndGet();
            gate.join();
            syncHeld.decrementAndGet();
        }
        return attemptNow(ownerId, mode);
    }

    private synchronized Acquire attemptNow(long ownerId, AttemptMode mode) {
        attempts.add(mode);
        if (failNext != null) {
            RuntimeException e = failNext;
            failNext = null;
            throw e;
        }
        if (refuse != null) {
            return new Acquire.Refused(refuse);
        }
        String f = field(ownerId);
        Acquire outcome;
        if (holder == null || holder.equals(f)) {
            if (!(mode == AttemptMode.RESOLVE && f.equals(holder))) {
                count++;
            }
            holder = f;
            outcome = Acquire.ACQUIRED;
        } else {
            outcome = new Acquire.Busy(this.ttlMs);
        }
        if (runThenLoseReply) {
            runThenLoseReply = false;
            throw new RedisUnavailableException("injected: reply lost after the attempt ran");
        }
        return outcome;
    }

    @Override
    public CompletableFuture<Acquire> attemptAsync(long ttlMs, long ownerId, AttemptMode mode) {
        CompletableFuture<Acquire> f = new CompletableFuture<>();
        Runnable reply = () -> {
            try {
                f.complete(attempt(ttlMs, ownerId, mode));
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            }
        };
        synchronized (this) {
            if (holdAsync) {
                heldReplies.add(reply);
                return f;
            }
        }
        reply.run();
        return f;
    }

    /** Runs the oldest held async attempt (it "reaches Redis" now and answers). */
    void completeAsync() {
        Runnable r;
        synchronized (this) {
            r = heldReplies.poll();
        }
        r.run();
    }

    @Override
    public synchronized CompletableFuture<Void> giveUp(long ownerId) {
        giveUps.add(ownerId);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public synchronized void releaseNow(long ownerId) {
        releasedNow.add(ownerId);
        release(field(ownerId));
    }

    @Override
    public synchronized CompletableFuture<Void> giveBack(long ownerId) {
        givenBack.add(ownerId);
        release(field(ownerId));
        CompletableFuture<Void> reply = giveBackReply;
        return reply != null ? reply : CompletableFuture.completedFuture(null);
    }

    @Override
    public synchronized CompletableFuture<Void> giveBackTransfer(long ownerId, long ttlMs) {
        transfersGivenBack.add(ownerId);
        release(field(ownerId));
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public long localHoldRemainingMs(String field) {
        return -1;
    }

    /** Another owner takes the lock. */
    synchronized void holdBy(String field) {
        holder = field;
        count = 1;
    }

    /** The holder's last hold goes (no message). */
    synchronized void release(String field) {
        if (field.equals(holder) && --count <= 0) {
            holder = null;
            count = 0;
        }
    }

    /** The lock goes (its holder released it, or its key expired) without any message. */
    synchronized void free() {
        holder = null;
        count = 0;
    }

    synchronized int attemptCount() {
        return attempts.size();
    }

    synchronized AttemptMode lastMode() {
        return attempts.get(attempts.size() - 1);
    }

    synchronized String holder() {
        return holder;
    }

    synchronized int holdCount() {
        return count;
    }
}
