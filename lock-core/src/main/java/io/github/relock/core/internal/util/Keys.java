package io.github.relock.core.internal.util;

import io.github.relock.spi.Slots;

/**
 * Key, field and channel names, all from one place, following Redisson's rules (spec 1.3/1.4):
 * the only test is whether the name contains '{'. On a cluster, {@link #requireOneSlot} refuses a
 * name whose derived keys would not share its slot.
 */
public final class Keys {
    public static final String LOCK_CHANNEL_PREFIX = "redisson_lock__channel";

    private Keys() {
    }

    /** {@code prefix:{name}}, or {@code prefix:name} when the name already contains '{'. */
    public static String prefixName(String prefix, String name) {
        return name.indexOf('{') >= 0 ? prefix + ":" + name : prefix + ":{" + name + "}";
    }

    /** {@code {name}:suffix}, or {@code name:suffix} when the name already contains '{'. */
    public static String suffixName(String name, String suffix) {
        return name.indexOf('{') >= 0 ? name + ":" + suffix : "{" + name + "}:" + suffix;
    }

    /** The channel unlocks of a reentrant lock publish on. */
    public static String lockChannel(String name) {
        return prefixName(LOCK_CHANNEL_PREFIX, name);
    }

    /**
     * On a Redis Cluster a lock's scripts touch its hash together with keys and channels made from
     * its name ({@link #prefixName}, {@link #suffixName}), so all of them must share one hash slot.
     * They do when the name has no brace, or a complete hash tag; a name with a '}' but no '{'
     * before it, or a '{' without a complete tag ("{", "a{}b"), spreads them over several slots,
     * and a script would fail with CROSSSLOT after the lock was taken, so it could never be released.
     *
     * @throws IllegalArgumentException naming the name, the slots and what to use instead
     */
    public static void requireOneSlot(String name) {
        int slot = Slots.slot(name);
        String channel = lockChannel(name);
        String suffixed = suffixName(name, "x");
        String other = Slots.slot(channel) != slot ? channel : Slots.slot(suffixed) != slot ? suffixed : null;
        if (other != null) {
            throw new IllegalArgumentException("lock name '" + Args.shown(name) + "' cannot be used on a Redis Cluster:"
                    + " the lock's hash (slot " + slot + ") and '" + Args.shown(other) + "' (slot " + Slots.slot(other)
                    + ") fall in different hash slots, so its scripts would fail with CROSSSLOT; use a name with no"
                    + " brace, or one with a complete hash tag such as 'orders:{42}'");
        }
    }

    /** The owner field {@code <clientId>:<threadId>}. */
    public static String ownerField(String clientId, long threadId) {
        return clientId + ":" + threadId;
    }
}
