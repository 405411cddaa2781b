package io.github.relock.driver.jedis;

import io.github.relock.api.RedisErrorException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Turns what Jedis returns into the shapes the SPI allows (see
 * {@link io.github.relock.spi.CommandExecutor}): {@code null}, {@link Long}, {@link String} or
 * {@code List<Object>}. Exceptions are {@link Errors}'.
 *
 * <p>Thread-safety: stateless.
 */
final class Replies {

    private Replies() {
    }

    /**
     * Normalises a reply as Jedis built it. Jedis gives status and bulk replies as {@code byte[]}
     * or {@code String} depending on the builder; RESP3 clients may also give booleans, doubles and
     * maps, which are mapped to what the same script returns over RESP2.
     *
     * @param reply the raw reply
     * @return the normalised reply
     * @throws RedisErrorException if the reply is, or contains, an error reply
     */
    static Object normalise(Object reply) {
        if (reply == null || reply instanceof Long || reply instanceof String) {
            return reply;
        }
        if (reply instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        if (reply instanceof Integer i) {
            return i.longValue();
        }
        if (reply instanceof Boolean b) {
            // Lua true/false: RESP2 sends integer 1 / nil, RESP3 a boolean; keep the RESP2 shape.
            return b ? 1L : null;
        }
        if (reply instanceof Double d) {
            return d.toString();
        }
        if (reply instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            for (Object o : list) {
                out.add(normalise(o));
            }
            return out;
        }
        if (reply instanceof Map<?, ?> map) {
            // A RESP3 map from a script that called redis.setresp(3): flatten as RESP2 would.
            List<Object> out = new ArrayList<>(map.size() * 2);
            for (Map.Entry<?, ?> e : map.entrySet()) {
                out.add(normalise(e.getKey()));
                out.add(normalise(e.getValue()));
            }
            return out;
        }
        if (reply instanceof JedisDataException e) {
            // an error element inside an array reply
            throw Errors.translate(e, "script reply");
        }
        throw new RedisErrorException("ERR unexpected reply type " + reply.getClass().getName()
                + " from Jedis; expected nil, integer, bulk, status, array or error");
    }
}
