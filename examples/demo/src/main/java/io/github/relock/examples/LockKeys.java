package io.github.relock.examples;

/**
 * The Redis keys of a lock named {@code N}, as Redisson (and so relock) derive them
 * (wire-format spec §1.3–1.4): a name that contains {@code {} is used as is, any other is wrapped
 * in {@code {…}} so that every key of the lock hashes to the same cluster slot.
 *
 * <p>Thread-safety: stateless.
 */
final class LockKeys {
    private LockKeys() {
    }

    /** @return the fair lock's wait queue: a list of {@code clientId:threadId}, head first */
    static String fairQueue(String name) {
        return prefixName("redisson_lock_queue", name);
    }

    /** @return the fair lock's deadlines: a zset of {@code clientId:threadId} scored by epoch ms */
    static String fairTimeouts(String name) {
        return prefixName("redisson_lock_timeout", name);
    }

    static String prefixName(String prefix, String name) {
        return name.contains("{") ? prefix + ":" + name : prefix + ":{" + name + "}";
    }
}
