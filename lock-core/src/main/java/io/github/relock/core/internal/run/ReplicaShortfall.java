package io.github.relock.core.internal.run;

import io.github.relock.api.RedisUnavailableException;

/**
 * A synced lock write ran on the master but fewer replicas than {@code LockOptions.replicaSync}
 * asks for acknowledged it within the timeout. Carries the call's decoded outcome on the master,
 * so the caller can undo an acquisition or keep its registry in step with what the master did.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public final class ReplicaShortfall extends RedisUnavailableException {
    private static final long serialVersionUID = 1L;

    /** The call's outcome on the master (not serialised). */
    private final transient Object outcome;
    private final long acknowledged;
    private final int required;

    ReplicaShortfall(String what, Object outcome, long acknowledged, int required, long timeoutMs) {
        super(what + ": only " + acknowledged + " of " + required + " replica(s) acknowledged within "
                + timeoutMs + " ms (LockOptions.replicaSync); the write took effect on the master");
        this.outcome = outcome;
        this.acknowledged = acknowledged;
        this.required = required;
    }

    /**
     * @param type the outcome type of the call that fell short
     * @param <T> that type
     * @return the outcome on the master
     */
    public <T> T outcome(Class<T> type) {
        return type.cast(outcome);
    }

    /** @return replicas that acknowledged */
    public long acknowledged() {
        return acknowledged;
    }

    /** @return replicas asked for */
    public int required() {
        return required;
    }
}
