package io.github.relock.core.internal.sync;

import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.protocol.AttemptMode;
import io.github.relock.core.internal.protocol.Call;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One acquire call's wait on a permit-expirable semaphore: the ids of the permits it wants, chosen
 * before the first attempt, and their lease. Every attempt sends the same ids, so an attempt whose
 * reply was lost is resolved by them (the machine's RESOLVE mode): if the first id is in the leases
 * zset the permits were taken and are this call's; otherwise (never taken, or taken and already
 * reclaimed) the attempt runs again. Giving back releases exactly these ids.
 *
 * <p>Thread-safety: the attempt fields are written by the wait's runner and read after it ended.
 */
final class PermitIds extends SyncTarget {
    private final SyncCalls calls;
    final List<String> ids;
    private final long leaseMs;
    /** The epoch-ms deadline the permits were (last) asked for. */
    volatile long deadline;
    /** When that attempt was sent (System.nanoTime): a lease runs from then on this client's clock. */
    volatile long sentAtNanos;

    PermitIds(Sync sync, SyncPolicy policy, SyncCalls calls, int permits, long leaseMs) {
        super(sync, policy);
        this.calls = calls;
        this.ids = SyncArgs.newIds(permits);
        this.leaseMs = leaseMs;
    }

    @Override
    Call<Acquire> attemptCall(AttemptMode mode) {
        sentAtNanos = System.nanoTime();
        long now = System.currentTimeMillis();
        deadline = SyncArgs.deadline(now, leaseMs);
        return calls.expirableAcquire(now, deadline, ids);
    }

    @Override
    Call<?> giveBackCall() {
        return calls.expirableReleaseMany(System.currentTimeMillis(), ids);
    }

    @Override
    public Acquire attempt(long ttlMs, long ownerId, AttemptMode mode) {
        if (mode == AttemptMode.RESOLVE && resolved(sync.services.runner().run(findCall()))) {
            return Acquire.ACQUIRED;
        }
        return super.attempt(ttlMs, ownerId, mode);
    }

    @Override
    public CompletableFuture<Acquire> attemptAsync(long ttlMs, long ownerId, AttemptMode mode) {
        if (mode != AttemptMode.RESOLVE) {
            return super.attemptAsync(ttlMs, ownerId, mode);
        }
        return sync.services.runner().runAsync(findCall()).thenCompose(left -> resolved(left)
                ? CompletableFuture.completedFuture(Acquire.ACQUIRED)
                : super.attemptAsync(ttlMs, ownerId, mode));
    }

    private long findNow;

    private Call<Long> findCall() {
        findNow = System.currentTimeMillis();
        return calls.leaseTime(ids.get(0), findNow);
    }

    /** @return whether the lost attempt had taken the permits (their lease still runs) */
    private boolean resolved(long left) {
        if (left < -1) {
            return false;
        }
        deadline = left == -1 ? SyncCalls.NEVER : findNow + left;
        return true;
    }
}
