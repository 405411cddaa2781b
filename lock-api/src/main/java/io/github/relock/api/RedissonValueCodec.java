package io.github.relock.api;

/**
 * How a grouped multi-lock ({@link LockClient#getMultiLock(String, java.util.Collection, RedissonValueCodec)})
 * writes its values: as the Redisson 4.x client it shares them with is configured
 * ({@code Config.setCodec}). Redisson names each value in the group's hash by a hash of the
 * value's bytes as its codec writes them, so both sides must write the same bytes to exclude each
 * other.
 *
 * <p>Thread-safety: immutable.
 */
public enum RedissonValueCodec {
    /**
     * Redisson 4.x's default codec, {@code Kryo5Codec}: {@code String}, {@code Integer} and
     * {@code Long} values, written as Kryo 5 writes them (a class id, then the string or the
     * variable-length number).
     */
    KRYO5,
    /**
     * Redisson's {@code StringCodec}: a value's text in UTF-8. {@code String}, {@code Integer},
     * {@code Long}, {@code Short}, {@code Byte}, {@code Character}, {@code Boolean} and
     * {@code UUID} values (types whose text is fixed).
     */
    STRING
}
