package io.github.relock.spring.boot;

import java.util.Objects;
import org.springframework.context.ApplicationEvent;

/**
 * A change of leadership of a {@link RelockLeaderInitiator}, published as a Spring application
 * event: {@link RelockLeaderGrantedEvent} when its candidate becomes leader,
 * {@link RelockLeaderRevokedEvent} when that tenure ends. The source is the initiator. Listen for
 * this type to hear both.
 *
 * <p>Thread-safety: immutable.
 */
public abstract sealed class RelockLeaderEvent extends ApplicationEvent
        permits RelockLeaderGrantedEvent, RelockLeaderRevokedEvent {

    private static final long serialVersionUID = 1L;

    private final String name;
    private final long epoch;

    /**
     * @param source the initiator
     * @param name the election's name
     * @param epoch the tenure's epoch (its fencing token)
     */
    RelockLeaderEvent(RelockLeaderInitiator source, String name, long epoch) {
        super(source);
        this.name = Objects.requireNonNull(name, "name");
        this.epoch = epoch;
    }

    /** @return the election's name: the lock name it campaigns on */
    public String getName() {
        return name;
    }

    /**
     * @return the tenure's epoch: the fencing token of its hold, strictly greater than every earlier
     *     tenure's under this name; pass it with the leader's writes so a resource can refuse a
     *     deposed leader's
     */
    public long getEpoch() {
        return epoch;
    }

    /** @return the initiator that published this event */
    @Override
    public RelockLeaderInitiator getSource() {
        return (RelockLeaderInitiator) super.getSource();
    }
}
