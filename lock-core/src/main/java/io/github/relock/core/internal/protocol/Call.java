package io.github.relock.core.internal.protocol;

import io.github.relock.spi.Script;
import java.util.List;

/**
 * One protocol call on the wire: a script, its keys and arguments, and how to read its reply into
 * a typed outcome. A protocol builds calls; the script runner sends them, blocking
 * ({@code ScriptRunner.run}) or not ({@code ScriptRunner.runAsync}), so the blocking and async paths of
 * the engine are two runners of the same call.
 *
 * <p>Thread-safety: immutable when its decoder is.
 *
 * @param script the script
 * @param keys its KEYS (the first routes the call on a cluster)
 * @param args its ARGV
 * @param decoder reads the reply; throws {@code LockException} on a reply of the wrong shape
 * @param <T> the outcome type
 */
public record Call<T>(Script script, List<String> keys, List<String> args, Decoder<T> decoder) {

    /**
     * Reads a script's reply.
     *
     * @param <T> the outcome type
     */
    @FunctionalInterface
    public interface Decoder<T> {
        /**
         * @param reply the driver's normalised reply
         * @return the outcome
         */
        T decode(Object reply);
    }

    /**
     * @param reply the driver's reply
     * @return the outcome
     */
    public T decode(Object reply) {
        return decoder.decode(reply);
    }
}
