package io.github.relock.core.internal.sync;

import io.github.relock.core.internal.protocol.MessageWakes;
import io.github.relock.core.internal.protocol.WaitPolicy;

/**
 * How a waiter of a synchronizer waits (the package's design comment): its channel, what a message
 * there wakes, its poll bound, and whether a lost reply can be resolved.
 *
 * <p>Thread-safety: immutable.
 */
final class SyncPolicy implements WaitPolicy {
    /** The longest a waiter parks without a message before it looks again. */
    static final long POLL_MS = 1_000;

    /** A semaphore message is a count of permits: wake that many (the channel caps it by its waiters). */
    static final MessageWakes PERMITS = message -> {
        long n;
        try {
            n = Long.parseLong(message);
        } catch (NumberFormatException e) {
            return 0;
        }
        return n <= 0 ? 0 : (int) Math.min(n, Integer.MAX_VALUE);
    };

    /** A latch message: "0" (the count reached zero) wakes every waiter; "1" (a new count) none. */
    static final MessageWakes LATCH = message -> "0".equals(message) ? MessageWakes.ALL : 0;

    private final String kind;
    private final String name;
    private final String channel;
    private final MessageWakes wakes;
    private final boolean resolves;

    SyncPolicy(String kind, String name, String channel, MessageWakes wakes, boolean resolves) {
        this.kind = kind;
        this.name = name;
        this.channel = channel;
        this.wakes = wakes;
        this.resolves = resolves;
    }

    @Override
    public String kind() {
        return kind;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String waitChannel(String field) {
        return channel;
    }

    @Override
    public long maxPollIntervalMs() {
        return POLL_MS;
    }

    @Override
    public MessageWakes wakes() {
        return wakes;
    }

    @Override
    public boolean resolvesLostReplies() {
        return resolves;
    }
}
