package io.github.relock.api;

import java.util.Objects;

/**
 * Maps a user's lock name to the name relock uses in Redis, the equivalent of Redisson's
 * {@code NameMapper}: every key and channel of a lock (hash key, fair-lock queue and timeout keys,
 * read-write timeout keys, channels, fenced token key) is derived from the mapped name, as Redisson
 * 4.x derives them from {@code getRawName()}. A client set with {@code NameMapper.prefix("app1:")}
 * shares locks with a Redisson client whose config has a mapper giving the same names.
 *
 * <p>The client calls {@link #map} once per {@code get...Lock(name)} call; the result must be a
 * valid lock name (not null, not blank, UTF-8 encodable, one hash slot on a cluster), or the
 * {@code get...Lock} call fails naming both the input and the mapped value.
 *
 * <p>A lock's {@code getName()} returns the mapped name, the key in Redis (Redisson's
 * {@code getName()} returns the unmapped one); {@link #unmap} gives the user's name back.
 * Redisson 3.17.7 differs from 4.x when a mapper is set: its fair lock built the queue and timeout
 * keys from the unmapped name (fixed in 3.52.0), and its read-write lock mapped the name twice, so
 * with a mapper relock shares fair queues and read-write locks only with Redisson 4.x.
 *
 * <p>Thread-safety: implementations must be safe for use by several threads (the client calls
 * them from any thread that gets a lock).
 */
@FunctionalInterface
public interface NameMapper {

    /**
     * @param name the name the user passed (already checked: not null, not blank)
     * @return the name to use in Redis
     */
    String map(String name);

    /**
     * The inverse of {@link #map}, for tools that list locks in Redis and show users' names;
     * by default the identity. Redisson's mapper has it too.
     *
     * @param name a name in Redis, as {@link #map} produced it
     * @return the user's name
     */
    default String unmap(String name) {
        return name;
    }

    /** @return the mapper that changes nothing (the default of {@link LockOptions}) */
    static NameMapper identity() {
        return Identity.INSTANCE;
    }

    /**
     * @param prefix put before every name, e.g. {@code "app1:"}; not null, not empty
     * @return a mapper adding {@code prefix} (and {@link #unmap} removing it)
     */
    static NameMapper prefix(String prefix) {
        Objects.requireNonNull(prefix, "NameMapper prefix must not be null");
        if (prefix.isEmpty()) {
            throw new IllegalArgumentException("NameMapper prefix must not be empty (use NameMapper.identity()"
                    + " for no prefix), was ''");
        }
        return new Prefix(prefix);
    }
}

/** The identity mapper; a singleton so the client can skip mapping when it is set. */
enum Identity implements NameMapper {
    INSTANCE;

    @Override
    public String map(String name) {
        return name;
    }

    @Override
    public String toString() {
        return "NameMapper.identity()";
    }
}

/** {@link NameMapper#prefix}. */
record Prefix(String prefix) implements NameMapper {
    @Override
    public String map(String name) {
        return prefix.concat(name);
    }

    @Override
    public String unmap(String name) {
        return name.startsWith(prefix) ? name.substring(prefix.length()) : name;
    }

    @Override
    public String toString() {
        return "NameMapper.prefix(\"" + prefix + "\")";
    }
}
