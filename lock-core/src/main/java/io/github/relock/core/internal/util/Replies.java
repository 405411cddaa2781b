package io.github.relock.core.internal.util;

import io.github.relock.api.LockException;
import io.github.relock.spi.Script;
import java.util.List;

/**
 * Reads script replies by their expected shape. A driver that hands back something else (a
 * string, a double, a list of the wrong length, a null where an integer belongs) gets a
 * {@link LockException} naming the script, the lock, what was expected and what came, never a
 * {@code ClassCastException} or {@code NullPointerException} from deep inside the engine.
 */
public final class Replies {
    /** How much of an unexpected reply a message shows. */
    private static final int SHOWN = 100;

    private Replies() {
    }

    /**
     * @param reply the script's reply
     * @param script the script that replied
     * @param lock the lock's name
     * @param expected what a correct reply is, e.g. {@code "an integer -2..1"} (a constant: nothing
     *     is built on the lock path unless the reply is wrong)
     * @return the reply as a long
     * @throws LockException if the reply is not an integer
     */
    public static long integer(Object reply, Script script, String lock, String expected) {
        if (reply instanceof Long l) {
            return l;
        }
        throw malformed(reply, script, lock, expected);
    }

    /**
     * @param reply the script's reply
     * @param size how many elements it must have
     * @param script the script that replied
     * @param lock the lock's name
     * @param expected what a correct reply is (a constant)
     * @return the reply's elements, each an integer
     * @throws LockException if the reply is not a list of {@code size} integers
     */
    public static long[] integers(Object reply, int size, Script script, String lock, String expected) {
        if (reply instanceof List<?> list && list.size() == size) {
            long[] out = new long[size];
            for (int i = 0; i < size; i++) {
                if (!(list.get(i) instanceof Long l)) {
                    throw malformed(reply, script, lock, expected);
                }
                out[i] = l;
            }
            return out;
        }
        throw malformed(reply, script, lock, expected);
    }

    /** @return the error for a reply of the wrong shape (thrown by the caller) */
    public static LockException malformed(Object reply, Script script, String lock, String expected) {
        return new LockException("unexpected reply from the Redis driver to " + script.name() + " of lock '"
                + Args.shown(lock) + "': expected " + expected
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
