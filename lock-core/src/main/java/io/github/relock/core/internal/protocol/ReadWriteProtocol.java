package io.github.relock.core.internal.protocol;

import io.github.relock.core.internal.util.Keys;
import io.github.relock.core.internal.util.Scripts;
import java.util.List;

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
 * the write lock (it would wait on itself): the acquire script answers -3 (Acquire.Refused with
 * upgrade), and the engine fails lock() at once while tryLock answers false, as Redisson and the
 * JDK's ReentrantReadWriteLock do.
 *
 * The release scripts answer released once this owner holds nothing more of its half (whether or
 * not the hash remains for other readers), so the hold bookkeeping is the same as for every other
 * lock type.
 *
 * Thread-safety: immutable.
 */
public abstract class ReadWriteProtocol implements LockProtocol {
    private static final String WRITE_SUFFIX = ":write";
    final ProtocolContext ctx;
    final String name;
    final String channel;
    final List<String> nameKeys;
    final List<String> forceKeys;

    private ReadWriteProtocol(ProtocolContext ctx, String name) {
        this.ctx = ctx;
        this.name = name;
        this.channel = Keys.prefixName("redisson_rwlock", name);
        this.nameKeys = List.of(name);
        this.forceKeys = List.of(name, channel);
    }

    /** @return the read half of lock {@code name} */
    public static LockProtocol read(ProtocolContext ctx, String name) {
        return new Read(ctx, name);
    }

    /** @return the write half of lock {@code name} */
    public static LockProtocol write(ProtocolContext ctx, String name) {
        return new Write(ctx, name);
    }

    /** @return 'read' or 'write' */
    abstract String mode();

    @Override
    public String name() {
        return name;
    }

    @Override
    public Call<LockState> state(String field) {
        return new Call<>(Scripts.RW_STATE, nameKeys, List.of(mode(), field), Decoders.state(Scripts.RW_STATE, name));
    }

    @Override
    public Call<Boolean> forceRelease() {
        return new Call<>(Scripts.RW_FORCE_RELEASE, forceKeys,
                List.of(mode(), mode().equals("read") ? "0" : "1", ctx.publishMode()),
                Decoders.flag(Scripts.RW_FORCE_RELEASE, name));
    }

    @Override
    public String waitChannel(String field) {
        return channel;
    }

    /** The read half: shared, per-acquisition timeout keys, releases publish "0". */
    private static final class Read extends ReadWriteProtocol {
        private final String keyPrefix;

        Read(ProtocolContext ctx, String name) {
            super(ctx, name);
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
        public Call<Acquire> acquire(String field, long ttlMs, AttemptMode mode) {
            return new Call<>(Scripts.READ_ACQUIRE, List.of(name, timeoutPrefix(field)),
                    Decoders.withMode(mode, Long.toString(ttlMs), field, field + WRITE_SUFFIX),
                    Decoders.acquire(Scripts.READ_ACQUIRE, name, false));
        }

        @Override
        public Call<Release> release(String field, long ttlMs, Candidate transferTo) {
            return new Call<>(Scripts.READ_RELEASE, List.of(name, channel, timeoutPrefix(field), keyPrefix),
                    List.of(Long.toString(ttlMs), field, ctx.publishMode()), Decoders.release(Scripts.READ_RELEASE, name));
        }

        @Override
        public Call<Boolean> expire(String field, long ttlMs) {
            return new Call<>(Scripts.READ_EXPIRE, List.of(name, timeoutPrefix(field), keyPrefix),
                    List.of(Long.toString(ttlMs), field), Decoders.flag(Scripts.READ_EXPIRE, name));
        }
    }

    /** The write half: exclusive, field {@code <owner>:write}, releases publish "1". */
    private static final class Write extends ReadWriteProtocol {

        Write(ProtocolContext ctx, String name) {
            super(ctx, name);
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
            return Keys.ownerField(clientId, ownerId) + WRITE_SUFFIX;
        }

        private static String readerField(String field) {
            return field.substring(0, field.length() - WRITE_SUFFIX.length());
        }

        @Override
        public Call<Acquire> acquire(String field, long ttlMs, AttemptMode mode) {
            return new Call<>(Scripts.WRITE_ACQUIRE, nameKeys,
                    Decoders.withMode(mode, Long.toString(ttlMs), field, readerField(field)),
                    Decoders.acquire(Scripts.WRITE_ACQUIRE, name, true));
        }

        @Override
        public Call<Release> release(String field, long ttlMs, Candidate transferTo) {
            return new Call<>(Scripts.WRITE_RELEASE, forceKeys, List.of(Long.toString(ttlMs), field, ctx.publishMode()),
                    Decoders.release(Scripts.WRITE_RELEASE, name));
        }

        @Override
        public Call<Boolean> expire(String field, long ttlMs) {
            return new Call<>(Scripts.LOCK_EXPIRE, nameKeys, List.of(Long.toString(ttlMs), field),
                    Decoders.flag(Scripts.LOCK_EXPIRE, name));
        }

        @Override
        public String refusal(String field) {
            return "cannot take the write lock of '" + name + "': this owner (" + readerField(field)
                    + ") holds its read lock, and a read lock cannot be upgraded; release the read lock first";
        }
    }
}
