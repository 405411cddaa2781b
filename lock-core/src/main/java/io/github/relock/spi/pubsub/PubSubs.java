package io.github.relock.spi.pubsub;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.Slots;
import io.github.relock.spi.ConnectionListener;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * What the pub/sub helpers share: the back-off between attempts, how a failure becomes one of the
 * SPI's exception types, telling core about a reconnect, and grouping channels by hash slot.
 *
 * <p>Thread-safety: stateless.
 */
final class PubSubs {
    private static final System.Logger LOG = System.getLogger(PubSubs.class.getName());
    private static final long MAX_BACKOFF_MS = 2000;

    private PubSubs() {
    }

    /** @return a one-thread scheduler on a daemon thread named {@code threadName}; a cancelled task leaves its queue */
    static ScheduledThreadPoolExecutor timer(String threadName) {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    /** @return the delay before attempt {@code failures + 1}: 0, 50, 100 ms ... doubling to 2 s */
    static long backoffMs(int failures) {
        return failures <= 0 ? 0 : Math.min(MAX_BACKOFF_MS, 50L << Math.min(failures - 1, 10));
    }

    /**
     * @return {@code failure} (unwrapped) when it is one of the types the SPI lets cross
     *     ({@link RedisErrorException}, {@link RedisUnavailableException}, {@link IllegalStateException}),
     *     else a {@link RedisUnavailableException} saying {@code what} failed
     */
    static RuntimeException typed(Throwable failure, String what) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof RedisErrorException || t instanceof RedisUnavailableException || t instanceof IllegalStateException) {
            return (RuntimeException) t;
        }
        return new RedisUnavailableException(what + " failed: " + t, t);
    }

    /** Calls {@code listener}'s onDisconnect (if set), logging what it throws. */
    static void tellDisconnect(ConnectionListener listener) {
        if (listener != null) {
            try {
                listener.onDisconnect();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "ConnectionListener.onDisconnect threw", e);
            }
        }
    }

    /** Calls {@code listener}'s onReconnect (if set) after logging {@code what} at INFO, logging what it throws. */
    static void tellReconnect(ConnectionListener listener, String what) {
        LOG.log(Level.INFO, what);
        if (listener != null) {
            try {
                listener.onReconnect();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "ConnectionListener.onReconnect threw", e);
            }
        }
    }

    /** @return the channels grouped by Redis Cluster hash slot, in first-seen order */
    static List<List<String>> bySlot(Collection<String> channels) {
        Map<Integer, List<String>> groups = new LinkedHashMap<>();
        for (String c : channels) {
            groups.computeIfAbsent(Slots.slot(c), k -> new ArrayList<>()).add(c);
        }
        return new ArrayList<>(groups.values());
    }
}
