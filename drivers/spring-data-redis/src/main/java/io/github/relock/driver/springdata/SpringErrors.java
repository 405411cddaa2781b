package io.github.relock.driver.springdata;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.ErrorReplies;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.dao.TransientDataAccessException;

/**
 * Maps what Spring Data Redis, Jedis and Lettuce throw to core's exception types: a resource
 * failure or timeout anywhere in the chain means Redis could not be used; otherwise the client's
 * exception carrying Redis's reply is classified by {@link ErrorReplies} ({@code NOSCRIPT}; a
 * transient state such as {@code LOADING} or {@code BUSY} is unavailable; {@code NOPERM}, {@code ERR}
 * and the rest are refusals). An {@link IllegalStateException} from a factory or a client (a
 * factory that was stopped) is unavailable too: only {@link Misconfigured} crosses as one.
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
                || e instanceof Misconfigured || e instanceof IllegalArgumentException) {
            return (RuntimeException) e;
        }
        String redisText = redisReply(e);
        if (redisText != null && (redisText.startsWith("NOSCRIPT") || !isOutage(e))) {
            return ErrorReplies.toException(redisText, what, e); // a transient state is unavailable, NOPERM refused
        }
        if (isOutage(e)) {
            return new RedisUnavailableException(what + " failed: " + e.getMessage(), e);
        }
        // anything else, IllegalStateException included (a stopped factory, a client shut down
        // under the driver): the SPI keeps IllegalStateException for "the executor is closed"
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
     * and Lettuce's {@code RedisCommandExecutionException} carry the reply as their message, and so
     * do their subclasses ({@code JedisAccessControlException} for {@code NOPERM},
     * {@code JedisBusyException}, {@code RedisReadOnlyException} ...), matched by the class they
     * extend (neither client need be on the class path). A redirection ({@code MOVED}, {@code ASK})
     * that the cluster client did not follow is not taken as a refusal: it stays unavailable.
     */
    private static String redisReply(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            for (Class<?> k = t.getClass(); k != null && k != Object.class; k = k.getSuperclass()) {
                String type = k.getName();
                if (type.endsWith("JedisRedirectionException")) {
                    return null;
                }
                if (type.equals("redis.clients.jedis.exceptions.JedisDataException")
                        || type.equals("io.lettuce.core.RedisCommandExecutionException")) {
                    return t.getMessage();
                }
            }
        }
        return null;
    }
}
