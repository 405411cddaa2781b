package io.github.relock.spring.boot;

/**
 * Published when a {@link RelockLeaderInitiator}'s candidate became leader: the tenure of
 * {@link #getEpoch()} began. The counterpart of Spring Integration's {@code OnGrantedEvent}.
 *
 * <p>Thread-safety: immutable.
 */
public final class RelockLeaderGrantedEvent extends RelockLeaderEvent {

    private static final long serialVersionUID = 1L;

    /**
     * @param source the initiator
     * @param name the election's name
     * @param epoch the tenure's epoch
     */
    public RelockLeaderGrantedEvent(RelockLeaderInitiator source, String name, long epoch) {
        super(source, name, epoch);
    }

    @Override
    public String toString() {
        return "RelockLeaderGrantedEvent[name=" + getName() + ", epoch=" + getEpoch() + "]";
    }
}
