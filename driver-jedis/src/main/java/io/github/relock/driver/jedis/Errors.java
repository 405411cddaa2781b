package io.github.relock.driver.jedis;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.ErrorReplies;
import io.github.relock.spi.NoScriptException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisValidationException;

/**
 * Maps what Jedis throws to core's exception types (the SPI allows nothing else to cross), as the
 * Lettuce driver's {@code Errors} does for Lettuce.
 *
 * <p>Thread-safety: stateless.
 */
final class Errors {

    private Errors() {
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
            // an error reply: NOSCRIPT, a transient state (LOADING, BUSY ...: unavailable), or a refusal
            return ErrorReplies.toException(e.getMessage(), what, e);
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
