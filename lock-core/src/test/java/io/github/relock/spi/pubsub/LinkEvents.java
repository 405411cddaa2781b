package io.github.relock.spi.pubsub;

import io.github.relock.spi.ConnectionListener;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts what a pub/sub helper told core about its link: breaks and reconnects. */
final class LinkEvents implements ConnectionListener {
    final AtomicInteger reconnects = new AtomicInteger();
    final AtomicInteger breaks = new AtomicInteger();

    @Override
    public void onReconnect() {
        reconnects.incrementAndGet();
    }

    @Override
    public void onDisconnect() {
        breaks.incrementAndGet();
    }
}
