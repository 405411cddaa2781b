package io.github.relock.spi;

import io.github.relock.api.LockException;
import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import java.util.Set;

/**
 * Which of the SPI's exception types an error reply from Redis becomes, in one place for every
 * driver: a driver hands it the reply's text (as its client reports it) and throws what it returns.
 *
 * <ul>
 * <li>{@code NOSCRIPT}: {@link NoScriptException} (core then sends {@code EVAL}).</li>
 * <li>A server that cannot serve <em>now</em>: {@link RedisUnavailableException}, as a broken
 *     connection is, so core waits and retries where it retries an unavailable server.
 *     {@code LOADING} (a restarted server reading its data), {@code READONLY} (a master demoted
 *     by a failover, or a replica), {@code MASTERDOWN} (a replica cut off from its master),
 *     {@code TRYAGAIN} (a slot being resharded), {@code CLUSTERDOWN} (the cluster lost a slot's
 *     owner) and {@code BUSY} (a script or function running past the busy threshold). The command
 *     did not run; core treats it as it treats a reply lost, which is safe.</li>
 * <li>Anything else: {@link RedisErrorException}, Redis refuses: {@code ERR}, {@code WRONGTYPE}, a
 *     script's own errors, and {@code NOPERM}, {@code NOAUTH} and {@code WRONGPASS}. A permission
 *     error is a refusal, not an outage: it stays until an administrator changes the ACL, so
 *     retrying cannot help, and it must reach the application as Redis worded it.</li>
 * </ul>
 *
 * <p>Thread-safety: stateless; safe for use by several threads.
 */
public final class ErrorReplies {
    /** The first words of the error replies of a server in a transient state. */
    private static final Set<String> TRANSIENT = Set.of("LOADING", "READONLY", "MASTERDOWN", "TRYAGAIN",
            "CLUSTERDOWN", "BUSY");

    private ErrorReplies() {
    }

    /**
     * @param reply the error reply as Redis sent it, without the leading {@code -}
     *     (e.g. {@code "LOADING Redis is loading the dataset in memory"})
     * @param what the command attempted, for the message of an unavailable server
     *     (e.g. {@code "EVALSHA lock-acquire"})
     * @param cause the client library's exception, or null
     * @return the exception to throw, or to fail the call's future with
     */
    public static LockException toException(String reply, String what, Throwable cause) {
        RedisErrorException refused = new RedisErrorException(reply, cause);
        if (refused.errorCode().equals("NOSCRIPT")) {
            return new NoScriptException(reply, cause);
        }
        if (TRANSIENT.contains(refused.errorCode())) {
            return new RedisUnavailableException(what + " failed: the server cannot serve now, and did not run it: "
                    + reply, cause);
        }
        return refused;
    }
}
