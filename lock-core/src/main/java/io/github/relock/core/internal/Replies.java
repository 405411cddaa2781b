package io.github.relock.core.internal;

import io.github.relock.api.LockException;
import java.util.List;

/**
 * Reads script replies by their expected shape. A driver that hands back something else (a
 * string, a double, a list of the wrong length, a null where an integer belongs) gets a
 * {@link LockException} naming the script, the lock, what was expected and what came, never a
 * {@code ClassCastException} or {@code NullPointerException} from deep inside the engine.
 */
final class Replies {
    /** How much of an unexpected reply a message shows. */
    private static final int SHOWN = 100;

    private Replies() {
    }

    /**
     * @param reply the script's reply
     * @param what the script and lock, e.g. {@code "lock-release of lock 'x'"}
     * @param expected what a correct reply is, e.g. {@code "an integer -2..1"}
     * @return the reply as a long
     * @throws LockException if the reply is not an integer
     */
    static long integer(Object reply, String what, String expected) {
        if (reply instanceof Long l) {
            return l;
        }
        throw malformed(reply, what, expected);
    }

    /**
     * @param reply the script's reply
     * @param size how many elements it must have
     * @param what the script and lock
     * @param expected what a correct reply is
     * @return the reply's elements, each an integer
     * @throws LockException if the reply is not a list of {@code size} integers
     */
    static long[] integers(Object reply, int size, String what, String expected) {
        if (reply instanceof List<?> list && list.size() == size) {
            long[] out = new long[size];
            for (int i = 0; i < size; i++) {
                if (!(list.get(i) instanceof Long l)) {
                    throw malformed(reply, what, expected);
                }
                out[i] = l;
            }
            return out;
        }
        throw malformed(reply, what, expected);
    }

    /** @return the error for a reply of the wrong shape (thrown by the caller) */
    static LockException malformed(Object reply, String what, String expected) {
        return new LockException("unexpected reply from the Redis driver to " + what + ": expected " + expected
                + ", got " + show(reply) + "; the driver or a proxy in front of Redis changed the reply");
    }

    private static String show(Object reply) {
        if (reply == null) {
            return "null";
        }
        String text = String.valueOf(reply);
        if (text.length() > SHOWN) {
            text = text.substring(0, SHOWN) + "... (" + text.length() + " chars)";
        }
        return reply.getClass().getName() + " " + text;
    }
}
