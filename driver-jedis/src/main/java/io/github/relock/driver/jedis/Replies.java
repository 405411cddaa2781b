package io.github.relock.driver.jedis;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.NoScriptException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisValidationException;

/**
 * Turns what Jedis returns and throws into the shapes the SPI allows (see
 * {@link io.github.relock.spi.CommandExecutor}): replies become {@code null}, {@link Long},
 * {@link String} or {@code List<Object>}; exceptions become core's types. Nothing else crosses.
 *
 * <p>Thread-safety: stateless.
 */
final class Replies {

    private Replies() {
    }

    /**
     * Normalises a reply as Jedis built it. Jedis gives status and bulk replies as {@code byte[]}
     * or {@code String} depending on the builder; RESP3 clients may also give booleans, doubles and
     * maps, which are mapped to what the same script returns over RESP2.
     *
     * @param reply the raw reply
     * @return the normalised reply
     * @throws RedisErrorException if the reply is, or contains, an error reply
     */
    static Object normalise(Object reply) {
        if (reply == null || reply instanceof Long || reply instanceof String) {
            return reply;
        }
        if (reply instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        if (reply instanceof Integer i) {
            return i.longValue();
        }
        if (reply instanceof Boolean b) {
            // Lua true/false: RESP2 sends integer 1 / nil, RESP3 a boolean; keep the RESP2 shape.
            return b ? 1L : null;
        }
        if (reply instanceof Double d) {
            return d.toString();
        }
        if (reply instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            for (Object o : list) {
                out.add(normalise(o));
            }
            return out;
        }
        if (reply instanceof Map<?, ?> map) {
            // A RESP3 map from a script that called redis.setresp(3): flatten as RESP2 would.
            List<Object> out = new ArrayList<>(map.size() * 2);
            for (Map.Entry<?, ?> e : map.entrySet()) {
                out.add(normalise(e.getKey()));
                out.add(normalise(e.getValue()));
            }
            return out;
        }
        if (reply instanceof JedisDataException e) {
            // an error element inside an array reply
            throw translate(e, "script reply");
        }
        throw new RedisErrorException("ERR unexpected reply type " + reply.getClass().getName()
                + " from Jedis; expected nil, integer, bulk, status, array or error");
    }

    /**
     * Maps a Jedis exception to core's types.
     *
     * @param e what Jedis threw
     * @param what the command attempted, for the message (e.g. {@code "EVALSHA lock-acquire"})
     * @return the exception to throw
     */
    static RuntimeException translate(RuntimeException e, String what) {
        if (e instanceof RedisErrorException || e instanceof RedisUnavailableException) {
            return e;
        }
        if (e instanceof JedisNoScriptException) {
            return new NoScriptException(e.getMessage(), e);
        }
        if (e instanceof JedisDataException) {
            String msg = e.getMessage();
            if (msg != null && msg.startsWith("NOSCRIPT")) {
                return new NoScriptException(msg, e);
            }
            return new RedisErrorException(msg, e);
        }
        if (e instanceof JedisValidationException) {
            // Jedis refused the arguments before sending anything: a caller error, not an outage
            return new IllegalArgumentException(what + " rejected by Jedis: " + e.getMessage(), e);
        }
        if (e instanceof JedisException) {
            // JedisConnectionException (refused, reset, socket timeout), JedisClusterOperationException
            // (cluster retries used up), and a pool that could not lend a connection
            restoreInterruptIfCause(e);
            return new RedisUnavailableException(what + " failed: " + e.getMessage(), e);
        }
        return e;
    }

    private static void restoreInterruptIfCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException) {
                // a pool borrow was interrupted and Jedis swallowed the flag: give it back
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
