package io.github.relock.core.internal.run;

import io.github.relock.api.RedisUnavailableException;

/**
 * A synced lock write ran on the master but fewer replicas than {@code LockOptions.replicaSync}
 * asks for acknowledged it within the timeout (by default: none of the connected replicas did). Carries the call's decoded outcome on the master,
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

    private final boolean connected;

    ReplicaShortfall(String what, Object outcome, long acknowledged, int required, long timeoutMs) {
        this(what + ": only " + acknowledged + " of " + required + " replica(s) acknowledged within "
                + timeoutMs + " ms (LockOptions.replicaSync); the write took effect on the master",
                outcome, acknowledged, required, false);
    }

    private ReplicaShortfall(String message, Object outcome, long acknowledged, int required, boolean connected) {
        super(message);
        this.outcome = outcome;
        this.acknowledged = acknowledged;
        this.required = required;
        this.connected = connected;
    }

    /**
     * The default mode's failure (Redisson's {@code NoSyncedSlavesException}): none of the
     * {@code connected} replicas acknowledged.
     */
    static ReplicaShortfall noneOfConnected(String what, Object outcome, int connected, long timeoutMs) {
        return new ReplicaShortfall(what + ": none of the " + connected + " connected replica(s) acknowledged within "
                + timeoutMs + " ms (LockOptions.replicaSync, the default; Redisson fails alike with "
                + "NoSyncedSlavesException); the write took effect on the master", outcome, 0, connected, true);
    }

    /**
     * @return who acknowledged, for a message: "only 1 of 2 replica(s)", or by default "none of
     *     the 2 connected replica(s)"
     */
    public String acknowledgements() {
        return connected ? "none of the " + required + " connected replica(s)"
                : "only " + acknowledged + " of " + required + " replica(s)";
    }

    /** @return the option to name in a message, with Redisson's equivalent failure in the default mode */
    public String option() {
        return connected ? "LockOptions.replicaSync, the default; Redisson fails alike with NoSyncedSlavesException"
                : "LockOptions.replicaSync";
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

    /** @return replicas asked for (by default: the connected replicas waited for) */
    public int required() {
        return required;
    }
}
