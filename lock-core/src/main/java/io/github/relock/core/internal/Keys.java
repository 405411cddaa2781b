package io.github.relock.core.internal;

/**
 * Key, field and channel names, all from one place, following Redisson's rules (spec 1.3/1.4):
 * the only test is whether the name contains '{'; no attempt is made to validate the hash tag.
 */
final class Keys {
    static final String LOCK_CHANNEL_PREFIX = "redisson_lock__channel";

    private Keys() {
    }

    /** {@code prefix:{name}}, or {@code prefix:name} when the name already contains '{'. */
    static String prefixName(String prefix, String name) {
        return name.indexOf('{') >= 0 ? prefix + ":" + name : prefix + ":{" + name + "}";
    }

    /** {@code {name}:suffix}, or {@code name:suffix} when the name already contains '{'. */
    static String suffixName(String name, String suffix) {
        return name.indexOf('{') >= 0 ? name + ":" + suffix : "{" + name + "}:" + suffix;
    }

    /** The channel unlocks of a reentrant lock publish on. */
    static String lockChannel(String name) {
        return prefixName(LOCK_CHANNEL_PREFIX, name);
    }

    /** The owner field {@code <clientId>:<threadId>}. */
    static String ownerField(String clientId, long threadId) {
        return clientId + ":" + threadId;
    }
}
