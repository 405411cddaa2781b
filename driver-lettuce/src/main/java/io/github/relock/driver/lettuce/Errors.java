package io.github.relock.driver.lettuce;

import io.github.relock.api.LockException;
import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.ErrorReplies;
import io.github.relock.spi.NoScriptException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisNoScriptException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Turns Lettuce's exceptions into the types the SPI lets cross the boundary, so core never sees
 * (or parses) a Lettuce exception: error replies as {@link ErrorReplies} classifies them
 * ({@link RedisErrorException}, {@link NoScriptException} for {@code NOSCRIPT}, unavailable for a
 * server in a transient state such as {@code LOADING}); everything else Lettuce raises (closed or
 * broken connections, timeouts, connect failures) → {@link RedisUnavailableException}.
 *
 * <p>Thread-safety: stateless.
 */
final class Errors {

    private Errors() {
    }

    /**
     * @param failure what Lettuce (or a future) failed with
     * @param what the attempted operation and its target, for the message
     * @return the SPI exception to throw or to complete a future with
     */
    static LockException translate(Throwable failure, String what) {
        Throwable c = failure; // without the wrappers futures add around the real failure
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        if (c instanceof LockException already) {
            return already;
        }
        String message = c.getMessage();
        if (c instanceof RedisNoScriptException
                || (c instanceof RedisCommandExecutionException && message != null && message.startsWith("NOSCRIPT"))) {
            return new NoScriptException(message, c);
        }
        if (c instanceof RedisCommandExecutionException) { // its subclasses too: RedisBusyException, RedisLoadingException ...
            return ErrorReplies.toException(message, what, c); // a transient state is unavailable, NOPERM refused
        }
        if (c instanceof RedisCommandTimeoutException || c instanceof TimeoutException) {
            return new RedisUnavailableException(what + " got no reply in time; whether it ran is unknown", c);
        }
        return new RedisUnavailableException(what + " failed: " + c, c);
    }

    /**
     * @return a new future completed as {@code command} is, a failure translated (the message
     *     built only then); {@code command} itself is left alone
     */
    static <T> CompletableFuture<T> translated(CompletionStage<T> command, Supplier<String> what) {
        CompletableFuture<T> out = new CompletableFuture<>();
        command.whenComplete((value, failure) -> {
            if (failure == null) {
                out.complete(value);
            } else {
                out.completeExceptionally(translate(failure, what.get()));
            }
        });
        return out;
    }
}
