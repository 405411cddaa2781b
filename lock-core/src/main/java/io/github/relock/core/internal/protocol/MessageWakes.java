package io.github.relock.core.internal.protocol;

/**
 * How a message on a wait channel wakes the waiters of this client parked on it.
 *
 * <p>Thread-safety: implementations are immutable.
 */
@FunctionalInterface
public interface MessageWakes {
    /** Wake every waiter. */
    int ALL = -1;

    /** Locks (spec 3.1): "0" (UNLOCK) wakes one waiter, "1" (READ_UNLOCK) every waiter; anything else none. */
    MessageWakes LOCK = message -> switch (message) {
        case "0" -> 1;
        case "1" -> ALL;
        default -> 0;
    };

    /**
     * @param message the message's payload
     * @return how many waiters to wake (one more for each wake-up, banked when nobody is parked),
     *     {@link #ALL} for every one, 0 for none
     */
    int wakes(String message);
}
