package io.github.relock.driver.springdata;

import io.github.relock.api.RedisErrorException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Brings Jedis' raw reply, as Spring's generic {@code RedisConnection.execute} returns it, into the
 * SPI's form ({@code null}, {@link Long}, {@link String}, {@code List<Object>}), folding RESP3-only
 * types (booleans, doubles, maps) to what RESP2 would send, whatever protocol the factory speaks.
 *
 * <p>Thread-safety: stateless.
 */
final class RawReply {

    private RawReply() {
    }

    /**
     * @param raw the client's reply
     * @return the SPI's form of it
     * @throws RedisErrorException for an error element, or a type no Redis reply maps to
     */
    static Object toSpi(Object raw) {
        if (raw == null || raw instanceof Long || raw instanceof String) {
            return raw;
        }
        if (raw instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        if (raw instanceof ByteBuffer buf) {
            return StandardCharsets.UTF_8.decode(buf.duplicate()).toString();
        }
        if (raw instanceof Number n && !(raw instanceof Double) && !(raw instanceof Float)) {
            return n.longValue();
        }
        if (raw instanceof Boolean flag) {
            return flag ? Long.valueOf(1L) : null; // Lua true is 1, false is nil in RESP2
        }
        if (raw instanceof Double || raw instanceof Float) {
            return raw.toString();
        }
        if (raw instanceof Map<?, ?> m) {
            List<Object> flat = new ArrayList<>(2 * m.size());
            m.forEach((k, v) -> {
                flat.add(toSpi(k));
                flat.add(toSpi(v));
            });
            return flat;
        }
        if (raw instanceof Collection<?> items) {
            List<Object> out = new ArrayList<>(items.size());
            for (Object item : items) {
                out.add(toSpi(item));
            }
            return out;
        }
        if (raw instanceof RuntimeException nested) {
            throw SpringErrors.translate(nested, "script reply");
        }
        throw new RedisErrorException("ERR the client returned a " + raw.getClass().getName()
                + " for a script reply; the driver understands nil, integer, bulk, status, array and error");
    }
}
