package io.github.relock.driver.springdata;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.NoScriptException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.dao.TransientDataAccessException;

/**
 * Maps what Spring Data Redis, Jedis and Lettuce throw to core's exception types: a resource
 * failure or timeout anywhere in the chain means Redis could not be used; otherwise the client's
 * exception carrying Redis's reply ({@code NOSCRIPT ...}, {@code ERR ...}) means Redis refused.
 *
 * <p>Thread-safety: stateless.
 */
final class SpringErrors {

    private SpringErrors() {
    }

    /**
     * @param failure what the factory, the connection or the client threw
     * @param what the attempted command, for messages (e.g. {@code "EVALSHA lock-acquire"})
     * @return the exception to throw instead
     */
    static RuntimeException translate(Throwable failure, String what) {
        Throwable e = failure;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        if (e instanceof RedisErrorException || e instanceof RedisUnavailableException
                || e instanceof IllegalStateException || e instanceof IllegalArgumentException) {
            return (RuntimeException) e;
        }
        String redisText = redisReply(e);
        if (redisText != null && redisText.startsWith("NOSCRIPT")) {
            return new NoScriptException(redisText, e);
        }
        if (isOutage(e)) {
            return new RedisUnavailableException(what + " failed: " + e.getMessage(), e);
        }
        if (redisText != null) {
            return new RedisErrorException(redisText, e);
        }
        return new RedisUnavailableException(what + " failed: " + e, e);
    }

    /** Whether the chain says the server could not be reached or did not answer in time. */
    private static boolean isOutage(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof DataAccessResourceFailureException || t instanceof QueryTimeoutException
                    || t instanceof TransientDataAccessException || t instanceof java.io.IOException
                    || t instanceof java.util.concurrent.TimeoutException) {
                return true;
            }
            String type = t.getClass().getName();
            if (type.endsWith("ConnectionException") || type.endsWith("TimeoutException")
                    || type.endsWith("PoolException") || type.equals("io.lettuce.core.RedisException")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The Redis error reply in the chain, if the client reported one: Jedis' {@code JedisDataException}
     * and Lettuce's {@code RedisCommandExecutionException} carry the reply as their message.
     */
    private static String redisReply(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String type = t.getClass().getName();
            // JedisAccessControlException: NOPERM, e.g. a channel an ACL refuses (a JedisDataException)
            if (type.endsWith("JedisDataException") || type.endsWith("JedisNoScriptException")
                    || type.endsWith("JedisAccessControlException")
                    || type.endsWith("RedisCommandExecutionException") || type.endsWith("RedisNoScriptException")
                    || type.endsWith("RedisBusyException") || type.endsWith("RedisLoadingException")) {
                return t.getMessage();
            }
        }
        return null;
    }
}
