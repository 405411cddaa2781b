package io.github.relock.driver.springdata;

import io.github.relock.spi.MessageListener;
import io.github.relock.spi.Subscription;
import java.nio.charset.StandardCharsets;

/**
 * What both pub/sub classes keep per channel: its name (also as UTF-8, as the clients send it) and
 * core's listener; the subclass is the {@link Subscription} handed to core.
 *
 * <p>Thread-safety: immutable here; subclasses say what they add.
 */
abstract class ChannelSubscription implements Subscription {
    final String name;
    final byte[] raw;
    final MessageListener listener;

    ChannelSubscription(String name, MessageListener listener) {
        this.name = name;
        this.raw = name.getBytes(StandardCharsets.UTF_8);
        this.listener = listener;
    }

    @Override
    public String channel() {
        return name;
    }
}
