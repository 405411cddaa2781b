package io.github.relock.examples;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import redis.clients.jedis.UnifiedJedis;

/**
 * Reads what Redis holds for a semaphore or a count-down latch (sync spec 1.1), whichever library
 * wrote it: a permit-expirable semaphore's available permits and its held permits (ids as the
 * Java APIs show them, 32 hex characters, with their deadlines); a plain string count, which a
 * semaphore (available permits) and a latch (count-downs to go) keep alike. One read-only script
 * reads it all. It never changes anything.
 *
 * <p>Thread-safety: as thread-safe as the client it is given.
 */
final class SyncInspector {
    /** Held permits listed at most. */
    static final int MAX_PERMITS = 1000;
    /** A permit-expirable semaphore's "never" (sync spec 3.2). */
    static final long NEVER = 922337203685477L;

    /*
     * KEYS[1] the count N, KEYS[2] the leases zset {N}:timeout; ARGV[1] MAX_PERMITS.
     * Returns {type of N, its value or false, PTTL N, ZCARD leases, {id hex, score, ...}}.
     */
    private static final String SNAPSHOT = """
            local t = redis.call('type', KEYS[1]).ok
            local v = false
            if t == 'string' then v = redis.call('get', KEYS[1]) end
            local n = 0
            local held = {}
            if redis.call('type', KEYS[2]).ok == 'zset' then
              n = redis.call('zcard', KEYS[2])
              local z = redis.call('zrange', KEYS[2], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
              for i = 1, #z, 2 do
                held[#held + 1] = (z[i]:gsub('.', function(c) return string.format('%02x', c:byte()) end))
                held[#held + 1] = z[i + 1]
              end
            end
            return {t, v, redis.call('pttl', KEYS[1]), n, held}
            """;

    /**
     * What the keys say.
     *
     * @param name the name
     * @param expirable whether a leases zset exists (a permit-expirable semaphore)
     * @param count the string count (available permits, or a latch's count), or null when N is missing
     * @param ttlMs PTTL of N
     * @param heldPermits how many permits the zset holds
     * @param permits the first {@link #MAX_PERMITS} of them, earliest deadline first
     */
    record SyncState(String name, boolean expirable, Long count, long ttlMs, long heldPermits, List<Permit> permits) {
    }

    /**
     * One held permit.
     *
     * @param id its id, as the Java APIs show it
     * @param deadlineEpochMs when its lease ends, or null if it never does
     */
    record Permit(String id, Long deadlineEpochMs) {
    }

    private final UnifiedJedis redis;

    SyncInspector(UnifiedJedis redis) {
        this.redis = redis;
    }

    /** @return the state, or null when neither a count nor leases exist under the name */
    SyncState inspect(String name) {
        List<?> snap = (List<?>) redis.eval(SNAPSHOT, List.of(name, LockKeys.suffixName(name, "timeout")),
                List.of(Integer.toString(MAX_PERMITS)));
        String type = (String) snap.get(0);
        Long count = snap.get(1) == null ? null : parse(String.valueOf(snap.get(1)));
        long held = (Long) snap.get(3);
        if (held == 0 && (count == null || !type.equals("string"))) {
            return null;
        }
        List<?> flat = (List<?>) snap.get(4);
        List<Permit> permits = new ArrayList<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            long score = (long) Double.parseDouble(String.valueOf(flat.get(i + 1)));
            permits.add(new Permit(String.valueOf(flat.get(i)), score == NEVER ? null : score));
        }
        return new SyncState(name, held > 0, count, (Long) snap.get(2), held, permits);
    }

    /** @return lines for people */
    static String text(SyncState s, long nowMs) {
        StringBuilder sb = new StringBuilder(s.name()).append("  ");
        long available = s.count() == null ? 0 : s.count();
        if (s.expirable()) {
            sb.append("permit-expirable semaphore, ").append(available).append(" available, ").append(s.heldPermits())
                    .append(" held (").append(available + s.heldPermits()).append(" in all), ")
                    .append(LockReport.ttl(s.ttlMs())).append('\n');
            sb.append("  held permits (").append(s.heldPermits()).append(", earliest deadline first)\n");
            for (Permit p : s.permits()) {
                sb.append("    ").append(p.id()).append("  ").append(deadline(p.deadlineEpochMs(), nowMs)).append('\n');
            }
        } else {
            sb.append("semaphore or count-down latch, count ").append(available).append(", ")
                    .append(LockReport.ttl(s.ttlMs())).append("  (both keep one string count: as a semaphore, ")
                    .append(available).append(" permit(s) available; as a latch, ").append(available)
                    .append(" count-down(s) to go)");
        }
        return sb.toString().stripTrailing();
    }

    /** @return one line of JSON */
    static String json(SyncState s, long nowMs, String redisUrl) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", s.name());
        m.put("found", true);
        m.put("type", s.expirable() ? "permit-expirable-semaphore" : "semaphore-or-latch");
        m.put("redis", redisUrl);
        m.put("count", s.count());
        m.put("ttlMs", s.ttlMs());
        if (s.expirable()) {
            m.put("heldPermits", s.heldPermits());
            List<Object> permits = new ArrayList<>();
            for (Permit p : s.permits()) {
                Map<String, Object> o = new LinkedHashMap<>();
                o.put("id", p.id());
                o.put("deadlineEpochMs", p.deadlineEpochMs());
                o.put("deadlineInMs", p.deadlineEpochMs() == null ? null : p.deadlineEpochMs() - nowMs);
                permits.add(o);
            }
            m.put("permits", permits);
        }
        return Json.write(m);
    }

    private static String deadline(Long epochMs, long nowMs) {
        if (epochMs == null) {
            return "never expires";
        }
        long in = epochMs - nowMs;
        String secs = String.format(Locale.ROOT, "%.1f s", Math.abs(in) / 1000.0);
        return "deadline " + Instant.ofEpochMilli(epochMs) + " (" + (in >= 0 ? "in " + secs : secs
                + " ago: any client's next operation reclaims it") + ")";
    }

    private static Long parse(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
