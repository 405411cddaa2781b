package io.github.relock.driver.springdata;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How scripts reach Redis through one kind of factory: Spring's generic command path where it keeps
 * the reply's type ({@link GenericScriptCalls}, Jedis), or the backing client's own dispatch where
 * it does not ({@link LettuceScriptCalls}).
 *
 * <p>Thread-safety: implementations are safe for use by several threads.
 */
interface ScriptCalls {

    /**
     * @param command {@code EVALSHA} or {@code EVAL}, with {@code body} the SHA-1 or the script text
     * @param label for messages, e.g. {@code "EVALSHA lock-acquire"}
     * @return the reply in the SPI's form, on the calling thread, not interruptible
     */
    Object call(String command, String body, List<String> keys, List<String> args, String label);

    /**
     * As {@link #call}, completing on a driver or client thread. A call still unsent when the
     * command timeout has passed is never sent, and fails as not sent (the SPI's signal).
     */
    CompletableFuture<Object> callAsync(String command, String body, List<String> keys, List<String> args, String label);

    /** As {@link #callAsync}, on the renewal lane: never behind the application's async calls. */
    CompletableFuture<Object> callUrgentAsync(String command, String body, List<String> keys, List<String> args,
                                              String label);

    /** Stops what the calls started (threads); never the factory. */
    void close();

    /** @return {@code [body, numkeys, keys..., args...]} as UTF-8, the arguments after the command */
    static byte[][] argv(String body, List<String> keys, List<String> args) {
        byte[][] out = new byte[2 + keys.size() + args.size()][];
        out[0] = utf8(body);
        out[1] = utf8(Integer.toString(keys.size()));
        int i = 2;
        for (String k : keys) {
            out[i++] = utf8(k);
        }
        for (String a : args) {
            out[i++] = utf8(a);
        }
        return out;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}
