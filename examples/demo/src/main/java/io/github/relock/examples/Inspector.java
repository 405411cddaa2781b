package io.github.relock.examples;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.UnifiedJedis;

/**
 * Reads what Redis holds for a lock name and says what it is: reentrant, fair or read/write,
 * who holds it and how often, its TTL, the fair queue with deadlines, and each read hold's timeout
 * key. One read-only script reads it all, so the answer is a consistent snapshot even while the
 * lock changes hands hundreds of times a second. It never changes a lock.
 *
 * <p>Thread-safety: as thread-safe as the client it is given (Jedis {@code RedisClient} is).
 */
final class Inspector {
    private static final String MODE = "mode";
    private static final String WRITE_SUFFIX = ":write";
    /** Read-hold timeout keys looked at per reader; more holds than this are not listed. */
    static final int MAX_READ_HOLDS = 1000;

    /*
     * KEYS[1] lock hash N, KEYS[2] fair queue, KEYS[3] fair deadlines (zset), KEYS[4] fenced-lock token
     * ARGV[1] prefix of read-hold timeout keys: suffixName(N, "") = "{N}:" (or "N:" when N has '{')
     * ARGV[2] MAX_READ_HOLDS
     * Returns {type of N, HGETALL N, LRANGE queue, ZRANGE deadlines WITHSCORES, PTTL N,
     *          {field, k, PTTL timeout key, ...} for each read hold, the token counter or false}.
     * The timeout keys share N's hash tag (so its cluster slot) but cannot be listed in KEYS:
     * which exist depends on the hash, as in Redisson's own read-unlock script.
     */
    private static final String SNAPSHOT = """
            local t = redis.call('type', KEYS[1]).ok
            local fields = {}
            if t == 'hash' then fields = redis.call('hgetall', KEYS[1]) end
            local q = {}
            if redis.call('type', KEYS[2]).ok == 'list' then q = redis.call('lrange', KEYS[2], 0, -1) end
            local z = {}
            if redis.call('type', KEYS[3]).ok == 'zset' then z = redis.call('zrange', KEYS[3], 0, -1, 'WITHSCORES') end
            local rt = {}
            if t == 'hash' and redis.call('hexists', KEYS[1], 'mode') == 1 then
              for i = 1, #fields, 2 do
                local f, n = fields[i], tonumber(fields[i + 1])
                if f ~= 'mode' and n and string.sub(f, -6) ~= ':write' then
                  for k = 1, math.min(n, tonumber(ARGV[2])) do
                    table.insert(rt, f)
                    table.insert(rt, k)
                    table.insert(rt, redis.call('pttl', ARGV[1] .. f .. ':rwlock_timeout:' .. k))
                  end
                end
              end
            end
            local token = false
            if redis.call('type', KEYS[4]).ok == 'string' then token = redis.call('get', KEYS[4]) end
            return {t, fields, q, z, redis.call('pttl', KEYS[1]), rt, token}
            """;

    private final UnifiedJedis redis;

    Inspector(UnifiedJedis redis) {
        this.redis = redis;
    }

    /**
     * @param name the lock name, as passed to {@code getLock}, {@code getFairLock} or
     *     {@code getReadWriteLock}
     * @return its state; {@link LockState#found()} is false when there is nothing to show
     */
    LockState inspect(String name) {
        if (name.isEmpty()) {
            return emptyName();
        }
        String queueKey = LockKeys.fairQueue(name);
        String timeoutKey = LockKeys.fairTimeouts(name);
        List<?> snap = (List<?>) redis.eval(SNAPSHOT, List.of(name, queueKey, timeoutKey, LockKeys.fencedToken(name)),
                List.of(LockKeys.suffixName(name, ""), Integer.toString(MAX_READ_HOLDS)));
        String type = (String) snap.get(0);
        Map<String, String> fields = pairs((List<?>) snap.get(1));
        List<String> queue = strings((List<?>) snap.get(2));
        Map<String, String> deadlines = pairs((List<?>) snap.get(3));
        long ttl = (Long) snap.get(4);
        List<?> timeouts = (List<?>) snap.get(5);
        Long token = snap.size() > 6 && snap.get(6) != null ? parseLong(String.valueOf(snap.get(6))) : null;

        if (!type.equals("hash") && !type.equals("none")) {
            return LockState.notALock(name, "'" + name + "' is a " + type
                    + " key, not a lock: relock and Redisson keep a lock in a hash");
        }
        boolean fair = !queue.isEmpty() || !deadlines.isEmpty();
        if (fields.isEmpty() && !fair && token == null) {
            return LockState.absent(name, "no lock named '" + name + "': nobody holds it or waits for it (no key '"
                    + name + "', no fair queue '" + queueKey + "')");
        }
        String mode = fields.get(MODE);
        List<LockState.Holder> holders = new ArrayList<>();
        for (Map.Entry<String, String> f : fields.entrySet()) {
            if (mode != null && f.getKey().equals(MODE)) {
                continue;
            }
            Long count = parseLong(f.getValue());
            if (count == null || count < 1) {
                return LockState.notALock(name, "'" + name + "' is a hash but not a lock: field '" + f.getKey()
                        + "' holds '" + f.getValue() + "', not a hold count");
            }
            boolean write = mode != null && f.getKey().endsWith(WRITE_SUFFIX);
            String owner = write ? f.getKey().substring(0, f.getKey().length() - WRITE_SUFFIX.length()) : f.getKey();
            String role = mode == null ? "exclusive" : write ? "write" : "read";
            holders.add(new LockState.Holder(f.getKey(), clientIdOf(owner), threadIdOf(owner), count, role));
        }
        if (mode != null) {
            List<LockState.ReadTimeout> reads = new ArrayList<>();
            for (int i = 0; i + 2 < timeouts.size(); i += 3) {
                String holder = (String) timeouts.get(i);
                long k = (Long) timeouts.get(i + 1);
                reads.add(new LockState.ReadTimeout(LockKeys.readTimeout(name, holder, k), holder, k,
                        (Long) timeouts.get(i + 2)));
            }
            return new LockState(name, LockState.Kind.READ_WRITE, null, mode, ttl, holders, List.of(), List.of(), reads,
                    null);
        }
        List<LockState.Waiter> waiters = new ArrayList<>();
        int position = 1;
        for (String w : queue) {
            String score = deadlines.remove(w);
            waiters.add(new LockState.Waiter(position++, w, clientIdOf(w), threadIdOf(w), deadline(score)));
        }
        List<LockState.Waiter> stray = new ArrayList<>();
        deadlines.forEach((w, score) -> stray.add(new LockState.Waiter(0, w, clientIdOf(w), threadIdOf(w), deadline(score))));
        LockState.Kind kind = fair ? LockState.Kind.FAIR : token != null ? LockState.Kind.FENCED : LockState.Kind.REENTRANT;
        return new LockState(name, kind, null, null, ttl, holders, waiters, stray, List.of(), token);
    }

    /** @return the answer for an empty lock name, which needs no Redis */
    static LockState emptyName() {
        return LockState.absent("", "the lock name is empty: pass the name given to getLock(...)");
    }

    private static Map<String, String> pairs(List<?> flat) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            m.put((String) flat.get(i), (String) flat.get(i + 1));
        }
        return m;
    }

    private static List<String> strings(List<?> list) {
        List<String> out = new ArrayList<>(list.size());
        for (Object o : list) {
            out.add((String) o);
        }
        return out;
    }

    private static Long deadline(String score) {
        if (score == null) {
            return null;
        }
        try {
            return (long) Double.parseDouble(score); // zset scores may come back as "1.7953e+12"
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** @return the part before the last colon of {@code clientId:threadId} (client ids have none) */
    static String clientIdOf(String owner) {
        int colon = owner.lastIndexOf(':');
        return colon < 0 ? owner : owner.substring(0, colon);
    }

    /** @return the number after the last colon, or null if there is none */
    static Long threadIdOf(String owner) {
        int colon = owner.lastIndexOf(':');
        return colon < 0 ? null : parseLong(owner.substring(colon + 1));
    }

    private static Long parseLong(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
