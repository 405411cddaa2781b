package io.github.relock.core.internal;

import io.github.relock.spi.Script;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/*
 * Design: the read-write lock's two protocols (spec 2.3, 2.4), on Redisson's keys. One hash N holds
 * 'mode' ('read' or 'write') and one field per holder: readers "<clientId>:<ownerId>", the writer
 * "<clientId>:<ownerId>:write". Both halves wait on one channel, redisson_rwlock:{N}; a read
 * release publishes "0" (wakes one waiter), a write release "1" (wakes every waiter, since several
 * readers may go at once).
 *
 * Readers' timeout keys. Each read acquisition k of an owner also writes {N}:<field>:rwlock_timeout:k
 * with the lease as its TTL. Redisson's read release deletes the whole hash when it finds no live
 * timeout key, so relock writes, releases and renews them exactly as Redisson does: the acquire
 * writes key k, the release deletes key count+1 and resets the hash TTL to the longest live one,
 * and the watchdog renews a read hold's keys 1..count with its hash (Hold.timeoutKeyPrefix).
 *
 * Downgrade and upgrade. The writer's owner may take read locks while it writes; when its write
 * hold goes, the mode becomes 'read' and its reads stay. An owner holding only reads cannot take
 * the write lock (it would wait on itself forever): the acquire script answers -3 and the engine
 * throws IllegalMonitorStateException at once.
 *
 * The release scripts answer 1 once this owner holds nothing more of its half (whether or not the
 * hash remains for other readers), 0 while it still does, so the HoldRegistry's bookkeeping is the
 * same as for every other lock type.
 *
 * Thread-safety: immutable.
 */
abstract class ReadWriteProtocol implements LockProtocol {
    final DefaultLockClient client;
    final String name;
    final String channel;
    private final List<String> nameKeys;
    private final List<String> forceKeys;

    private ReadWriteProtocol(DefaultLockClient client, String name) {
        this.client = client;
        this.name = name;
        this.channel = Keys.prefixName("redisson_rwlock", name);
        this.nameKeys = List.of(name);
        this.forceKeys = List.of(name, channel);
    }

    static LockProtocol read(DefaultLockClient client, String name) {
        return new Read(client, name);
    }

    static LockProtocol write(DefaultLockClient client, String name) {
        return new Write(client, name);
    }

    /** @return 'read' or 'write' */
    abstract String mode();

    List<String> nameKeys() {
        return nameKeys;
    }

    @Override
    public Script forceReleaseScript() {
        return Scripts.RW_FORCE_RELEASE;
    }

    @Override
    public List<String> forceReleaseKeys() {
        return forceKeys;
    }

    @Override
    public String waitChannel(String field) {
        return channel;
    }

    @Override
    public CompletableFuture<Void> giveUp(String field) {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public long maxPollIntervalMs() {
        return Long.MAX_VALUE;
    }

    @Override
    public Script stateScript() {
        return Scripts.RW_STATE;
    }

    @Override
    public List<String> stateArgs(String field) {
        return List.of(mode(), field);
    }

    /** The read half: shared, per-acquisition timeout keys, releases publish "0". */
    private static final class Read extends ReadWriteProtocol {
        private final String keyPrefix;

        Read(DefaultLockClient client, String name) {
            super(client, name);
            this.keyPrefix = name.indexOf('{') >= 0 ? name : "{" + name + "}";
        }

        @Override
        String mode() {
            return "read";
        }

        @Override
        public String kind() {
            return "ReadLock";
        }

        private String timeoutPrefix(String field) {
            return Keys.suffixName(name, field) + ":rwlock_timeout";
        }

        @Override
        public String timeoutKeyPrefix() {
            return keyPrefix;
        }

        @Override
        public Script acquireScript() {
            return Scripts.READ_ACQUIRE;
        }

        @Override
        public List<String> acquireKeys(String field) {
            return List.of(name, timeoutPrefix(field));
        }

        @Override
        public List<String> acquireArgs(long ttlMs, String field, boolean queue) {
            return List.of(Long.toString(ttlMs), field, field + ":write");
        }

        @Override
        public Script releaseScript() {
            return Scripts.READ_RELEASE;
        }

        @Override
        public List<String> releaseKeys(String field) {
            return List.of(name, channel, timeoutPrefix(field), keyPrefix);
        }

        @Override
        public List<String> releaseArgs(long ttlMs, String field) {
            return List.of(Long.toString(ttlMs), field, client.publishMode());
        }

        @Override
        public List<String> forceReleaseArgs() {
            return List.of("read", "0", client.publishMode());
        }

        @Override
        public Script expireScript() {
            return Scripts.READ_EXPIRE;
        }

        @Override
        public List<String> expireKeys(String name, String field) {
            return List.of(name, timeoutPrefix(field), keyPrefix);
        }
    }

    /** The write half: exclusive, field {@code <owner>:write}, releases publish "1". */
    private static final class Write extends ReadWriteProtocol {
        private static final String SUFFIX = ":write";

        Write(DefaultLockClient client, String name) {
            super(client, name);
        }

        @Override
        String mode() {
            return "write";
        }

        @Override
        public String kind() {
            return "WriteLock";
        }

        @Override
        public String ownerField(String clientId, long ownerId) {
            return Keys.ownerField(clientId, ownerId) + SUFFIX;
        }

        @Override
        public Script acquireScript() {
            return Scripts.WRITE_ACQUIRE;
        }

        @Override
        public List<String> acquireKeys(String field) {
            return nameKeys();
        }

        @Override
        public List<String> acquireArgs(long ttlMs, String field, boolean queue) {
            return List.of(Long.toString(ttlMs), field, field.substring(0, field.length() - SUFFIX.length()));
        }

        @Override
        public Script releaseScript() {
            return Scripts.WRITE_RELEASE;
        }

        @Override
        public List<String> releaseKeys(String field) {
            return forceReleaseKeys();
        }

        @Override
        public List<String> releaseArgs(long ttlMs, String field) {
            return List.of(Long.toString(ttlMs), field, client.publishMode());
        }

        @Override
        public List<String> forceReleaseArgs() {
            return List.of("write", "1", client.publishMode());
        }

        @Override
        public String refusal(String name, String field) {
            return "cannot take the write lock of '" + name + "': this owner ("
                    + field.substring(0, field.length() - SUFFIX.length())
                    + ") holds its read lock, and a read lock cannot be upgraded; release the read lock first";
        }
    }
}
