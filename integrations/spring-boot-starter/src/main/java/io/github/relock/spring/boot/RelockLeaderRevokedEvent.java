package io.github.relock.spring.boot;

import io.github.relock.api.LeaderElection;
import java.util.Objects;

/**
 * Published when the tenure of a {@link RelockLeaderInitiator}'s candidate ended: with
 * {@link LeaderElection.Reason#LOST} when its lease was lost (stop the leader's work; the candidate
 * campaigns again), with {@link LeaderElection.Reason#LEFT} when the initiator stopped (the
 * context is stopping or closing) or the client was closed. The counterpart of Spring Integration's
 * {@code OnRevokedEvent}.
 *
 * <p>Thread-safety: immutable.
 */
public final class RelockLeaderRevokedEvent extends RelockLeaderEvent {

    private static final long serialVersionUID = 1L;

    private final LeaderElection.Reason reason;

    /**
     * @param source the initiator
     * @param name the election's name
     * @param epoch the epoch of the tenure that ended
     * @param reason why it ended
     */
    public RelockLeaderRevokedEvent(RelockLeaderInitiator source, String name, long epoch, LeaderElection.Reason reason) {
        super(source, name, epoch);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** @return why the tenure ended */
    public LeaderElection.Reason getReason() {
        return reason;
    }

    @Override
    public String toString() {
        return "RelockLeaderRevokedEvent[name=" + getName() + ", epoch=" + getEpoch() + ", reason=" + reason + "]";
    }
}
