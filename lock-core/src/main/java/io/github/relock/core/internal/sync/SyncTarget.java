package io.github.relock.core.internal.sync;

import io.github.relock.core.internal.protocol.Acquire;
import io.github.relock.core.internal.protocol.AttemptMode;
import io.github.relock.core.internal.protocol.Call;
import io.github.relock.core.internal.protocol.WaitPolicy;
import io.github.relock.core.internal.wait.WaitTarget;
import java.util.concurrent.CompletableFuture;

/**
 * One waiting call on a synchronizer, as the wait machine's target: it carries what the call wants
 * (made for that call alone), answers one attempt at a time, and gives back what arrives after its
 * caller left. Nothing of a waiter is kept in Redis, so giving up undoes nothing. Subclasses say
 * what an attempt sends and what giving back sends.
 *
 * <p>Thread-safety: safe for use by several threads (immutable but for what subclasses say).
 */
abstract class SyncTarget implements WaitTarget {
    private static final System.Logger LOG = System.getLogger(SyncTarget.class.getName());

    final Sync sync;
    final SyncPolicy policy;

    SyncTarget(Sync sync, SyncPolicy policy) {
        this.sync = sync;
        this.policy = policy;
    }

    /** @return the attempt to send in {@code mode} */
    abstract Call<Acquire> attemptCall(AttemptMode mode);

    /** @return the call giving back what an attempt took, or null when there is nothing to give back */
    abstract Call<?> giveBackCall();

    @Override
    public String name() {
        return policy.name();
    }

    @Override
    public WaitPolicy protocol() {
        return policy;
    }

    @Override
    public String field(long ownerId) {
        return policy.name(); // no owner: only the channel, which the policy knows, matters
    }

    @Override
    public Acquire attempt(long ttlMs, long ownerId, AttemptMode mode) {
        return sync.services.runner().run(attemptCall(mode));
    }

    @Override
    public CompletableFuture<Acquire> attemptAsync(long ttlMs, long ownerId, AttemptMode mode) {
        return sync.services.runner().runAsync(attemptCall(mode));
    }

    @Override
    public CompletableFuture<Void> giveUp(long ownerId) {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public void releaseNow(long ownerId) {
        Call<?> back = giveBackCall();
        if (back != null) {
            sync.services.runner().run(back);
        }
    }

    /** Never called: synchronizers hand nothing off (their policies have no hand-off family). */
    @Override
    public CompletableFuture<Void> giveBackTransfer(long ownerId, long ttlMs) {
        throw new IllegalStateException("synchronizer '" + name() + "' takes no local hand-off");
    }

    @Override
    public CompletableFuture<Void> giveBack(long ownerId) {
        Call<?> back = giveBackCall();
        if (back == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<?> sent;
        try {
            sent = sync.services.runner().runAsync(back);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.handle((v, t) -> {
            if (t != null) {
                LOG.log(System.Logger.Level.WARNING, "giving back what a cancelled wait on " + policy.kind() + " '"
                        + policy.name() + "' took failed; those permits stay taken", t);
            }
            return null;
        });
    }

    @Override
    public long localHoldRemainingMs(String field) {
        return -1;
    }
}
