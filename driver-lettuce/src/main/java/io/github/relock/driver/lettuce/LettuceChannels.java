package io.github.relock.driver.lettuce;

import io.lettuce.core.Delegating;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.protocol.DefaultEndpoint;

/**
 * Breaks a Lettuce connection's network channel without closing the connection, so that Lettuce's
 * watchdog reconnects it (and a pub/sub connection resubscribes): what the pub/sub probe does to a
 * connection whose flow is gone without a reset. Lettuce offers no public call for it; its
 * {@link DefaultEndpoint#disconnect()} is one, reached through the connection's writer.
 *
 * <p>Thread-safety: stateless.
 */
final class LettuceChannels {

    private LettuceChannels() {
    }

    /** @return the endpoint under {@code connection}'s writer, or null (a cluster connection's is not reachable) */
    static DefaultEndpoint endpoint(StatefulConnection<?, ?> connection) {
        if (!(connection instanceof RedisChannelHandler<?, ?> handler)) {
            return null;
        }
        RedisChannelWriter writer = handler.getChannelWriter();
        for (int i = 0; i < 8 && writer instanceof Delegating<?> d && d.getDelegate() instanceof RedisChannelWriter inner; i++) {
            writer = inner;
        }
        return writer instanceof DefaultEndpoint endpoint ? endpoint : null;
    }

    /** Closes {@code connection}'s channel, if its endpoint is reachable; the watchdog reconnects. */
    static void disconnect(StatefulConnection<?, ?> connection) {
        DefaultEndpoint endpoint = endpoint(connection);
        if (endpoint != null) {
            endpoint.disconnect();
        }
    }
}
