package io.github.relock.core.internal.protocol;

/**
 * What one release found: one type for every lock type's release script.
 *
 * <p>Thread-safety: immutable.
 */
public sealed interface Release {
    /** The shared answer of a release that left holds of this owner in place. */
    StillHeld STILL_HELD = new StillHeld();

    /**
     * This owner's last hold went.
     *
     * @param heard subscribers of the lock's server that received the release's message (0 when
     *     nothing was published, as when other readers still hold the lock)
     */
    record Released(long heard) implements Release {
    }

    /** The owner still holds the lock (a reentrant hold count above one). */
    record StillHeld() implements Release {
    }

    /**
     * The owner did not hold the lock.
     *
     * @param free true if nobody holds it (its lease ran out, or it was force-unlocked), false if
     *     another owner does
     */
    record NotHeld(boolean free) implements Release {
    }

    /** Released and handed, in the same script, to the waiting owner the release named. */
    record HandedOff() implements Release {
    }
}
