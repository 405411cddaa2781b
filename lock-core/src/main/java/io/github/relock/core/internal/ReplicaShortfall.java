package io.github.relock.core.internal;

import io.github.relock.api.RedisUnavailableException;

/**
 * A synced lock write ran on the master but fewer replicas than {@code LockOptions.replicaSync}
 * asks for acknowledged it within the timeout. Carries the script's reply, so the caller can undo
 * an acquisition or keep its registry in step with what the master did.
 *
 * <p>Thread-safety: immutable once thrown.
 */
final class ReplicaShortfall extends RedisUnavailableException {
    private static final long serialVersionUID = 1L;

    /** The script's reply on the master (not serialised). */
    final transient Object reply;
    final long acknowledged;
    final int required;

    ReplicaShortfall(String what, Object reply, long acknowledged, int required, long timeoutMs) {
        super(what + ": only " + acknowledged + " of " + required + " replica(s) acknowledged within "
                + timeoutMs + " ms (LockOptions.replicaSync); the write took effect on the master");
        this.reply = reply;
        this.acknowledged = acknowledged;
        this.required = required;
    }
}
