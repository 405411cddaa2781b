package io.github.relock.core.internal.multi;

import io.github.relock.api.RedissonValueCodec;
import io.github.relock.core.internal.lock.ClientServices;
import io.github.relock.core.internal.lock.RedisLock;
import io.github.relock.core.internal.protocol.GroupedProtocol;
import io.github.relock.core.internal.util.Scripts;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/*
 * Design: the grouped multi-lock (Redisson 4.x getMultiLock(group, values), spec 2.8) is an
 * ordinary RedisLock over GroupedProtocol: waiting, holds, renewal, leases and release are the
 * engine's. What is its own is here: each value's field name, F(v) = Base64 (unpadded, 22
 * characters) of HighwayHash-128 under Redisson's fixed key of the value's bytes as the Redisson
 * client's codec writes them (ValueBytes: Redisson's default Kryo5Codec or its StringCodec, for
 * the types whose bytes are fixed), the two 64-bit words big-endian. The holds of a set are kept
 * under a name of their own in the group's slot (holdName), so two sets of one group, or a set and
 * the reentrant lock of the group's name, are counted and renewed apart; the watchdog reaches the
 * group's hash through the hold's renewal argument (Hold.renewalArg, renew-hold.lua).
 */

/**
 * The grouped multi-lock: every value of a set locked at once in one hash per group, on Redisson
 * 4.7.0's wire format.
 *
 * <p>Thread-safety: safe for use by several threads; it holds no per-object state beyond its names.
 */
public final class GroupedMultiLock extends RedisLock {
    /** Redisson's fixed HighwayHash key for value hashes (spec 2.8). */
    private static final long[] KEY = {0x9e3779b97f4a7c15L, 0xf39cc0605cedc834L, 0x1082276bf3a27251L,
        0xf86c6a11d0c18e95L};

    private final String group;
    private final int values;

    private GroupedMultiLock(ClientServices services, GroupedProtocol protocol, String group, int values) {
        super(services, protocol);
        this.group = group;
        this.values = values;
    }

    /**
     * @param services the client's services
     * @param group the group's hash (name checked and mapped)
     * @param values the values; at least one, no null, only the types {@code codec} takes
     * @param codec how the Redisson side writes values
     * @return the lock of those values of the group
     */
    public static GroupedMultiLock of(ClientServices services, String group, Collection<?> values,
                                      RedissonValueCodec codec) {
        if (codec == null) {
            throw new NullPointerException("codec must not be null (group '" + group + "')");
        }
        if (values == null) {
            throw new NullPointerException("values must not be null (group '" + group + "')");
        }
        if (values.isEmpty()) {
            throw new IllegalArgumentException("getMultiLock(group, values) needs at least one value, got none (group '"
                    + group + "')");
        }
        Set<String> fields = new LinkedHashSet<>();
        for (Object v : values) {
            fields.add(fieldName(v, group, codec));
        }
        List<String> sorted = new ArrayList<>(fields);
        sorted.sort(null);
        String holdName = Scripts.sameSlotTag(group) + ":relock-grouped:" + group + ":"
                + hashText(String.join(",", sorted).getBytes(StandardCharsets.US_ASCII));
        return new GroupedMultiLock(services, new GroupedProtocol(services.protocols(), group, holdName, sorted), group,
                fields.size());
    }

    /**
     * @return F(v), the hash field of value {@code v} (spec 2.8)
     * @throws IllegalArgumentException if {@code v} is null or of a type not supported
     */
    static String fieldName(Object v, String group, RedissonValueCodec codec) {
        if (v == null) {
            throw new IllegalArgumentException("getMultiLock(group, values): a value is null (group '" + group
                    + "'); values must be " + ValueBytes.allowed(codec));
        }
        if (!ValueBytes.takes(codec, v)) {
            throw new IllegalArgumentException("getMultiLock(group, values): value " + describe(v) + " of group '" + group
                    + "' is a " + v.getClass().getName() + "; values must be " + ValueBytes.allowed(codec));
        }
        return hashText(ValueBytes.of(codec, v));
    }

    private static String describe(Object v) {
        String s = String.valueOf(v);
        return "'" + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + "'";
    }

    /** @return Base64 of HighwayHash-128 of {@code bytes} (big-endian words), without its "==" */
    static String hashText(byte[] bytes) {
        long[] h = HighwayHash.hash128(bytes, KEY);
        byte[] out = new byte[16];
        for (int i = 0; i < 8; i++) {
            out[i] = (byte) (h[0] >>> (56 - 8 * i));
            out[8 + i] = (byte) (h[1] >>> (56 - 8 * i));
        }
        return Base64.getEncoder().withoutPadding().encodeToString(out);
    }

    /** @return the group's hash name (mapped by the client's name mapper, as other locks' names are) */
    @Override
    public String getName() {
        return group;
    }

    @Override
    public String toString() {
        return "GroupedMultiLock[" + group + ", " + values + " value(s)]";
    }
}
