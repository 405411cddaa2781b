package io.github.relock.spi;

import io.github.relock.api.RedisErrorException;

/**
 * Redis answered {@code EVALSHA} with {@code NOSCRIPT}: the script is not in that node's cache.
 * Drivers throw (or complete exceptionally with) this type; core then retries once with
 * {@code EVAL} on the same node.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public class NoScriptException extends RedisErrorException {
    private static final long serialVersionUID = 1L;

    /**
     * @param errorMessage the reply as Redis sent it
     * @param cause the client library's exception, or {@code null}
     */
    public NoScriptException(String errorMessage, Throwable cause) {
        super(errorMessage, cause);
    }
}
