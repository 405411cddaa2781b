package io.github.relock.tck;

import io.github.relock.tck.fixtures.RedisTopology;
import java.util.ArrayList;
import java.util.List;

/**
 * The protected resource of the fault chapter: a register, kept in a Redis that no fault touches,
 * that accepts a write only if its fencing token is not lower than the last token it accepted,
 * checked and applied atomically by a Lua script. Every accepted write is appended to a log, so
 * the run can be audited afterwards: {@link #staleAccepted()} counts the log's tokens lower than
 * one accepted before them (0 if the guard works), {@link #accepted()} is what must match the
 * writes the callers were told were accepted.
 *
 * <p>Thread-safety: safe for use by several threads (each call is one script run).
 */
public final class FencedRegister {
    private static final String WRITE = """
            local last = redis.call('GET', KEYS[1])
            local token = tonumber(ARGV[1])
            if last and token < tonumber(last) then
              return 0
            end
            redis.call('SET', KEYS[1], ARGV[1])
            redis.call('RPUSH', KEYS[2], ARGV[1])
            return 1
            """;

    private final RedisTopology store;
    private final String lastKey;
    private final String logKey;

    /**
     * @param store where the register lives (not the Redis the faults hit)
     * @param name the register's name; its keys are {@code tck:register:{name}:last} and {@code :log}
     */
    public FencedRegister(RedisTopology store, String name) {
        this.store = store;
        this.lastKey = "tck:register:{" + name + "}:last";
        this.logKey = "tck:register:{" + name + "}:log";
    }

    /**
     * @param token the writer's fencing token
     * @return whether the register accepted the write
     */
    public boolean write(long token) {
        Object r = store.call("EVAL", WRITE, "2", lastKey, logKey, Long.toString(token));
        return Long.valueOf(1L).equals(r);
    }

    /** @return every accepted token, in the order the register accepted them */
    public List<Long> accepted() {
        Object r = store.call("LRANGE", logKey, "0", "-1");
        List<Long> out = new ArrayList<>();
        if (r instanceof List<?> l) {
            for (Object o : l) {
                out.add(Long.parseLong(o instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8)
                        : o.toString()));
            }
        }
        return out;
    }

    /** @return accepted writes whose token is lower than a token accepted before them */
    public int staleAccepted() {
        int stale = 0;
        long max = Long.MIN_VALUE;
        for (long t : accepted()) {
            if (t < max) {
                stale++;
            }
            max = Math.max(max, t);
        }
        return stale;
    }

    /** Deletes the register's keys. */
    public void clear() {
        store.call("DEL", lastKey, logKey);
    }
}
