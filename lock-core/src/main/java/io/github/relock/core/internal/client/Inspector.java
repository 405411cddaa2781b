package io.github.relock.core.internal.client;

import io.github.relock.api.LockException;
import io.github.relock.api.LockInspection;
import io.github.relock.api.LockInspection.Holder;
import io.github.relock.api.LockInspection.Kind;
import io.github.relock.api.LockInspection.Mode;
import io.github.relock.api.OwnerInfo;
import io.github.relock.core.internal.run.ScriptRunner;
import io.github.relock.core.internal.util.Keys;
import io.github.relock.core.internal.util.Scripts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/**
 * {@link io.github.relock.api.LockClient#inspect}: one read-only script reads every key of a name
 * (lock hash or count, fair queue and deadlines, read holds' timeout keys, fencing token, held
 * permits; all in the name's slot), then, only if a holder or waiter has a client id, one more reads
 * the owner info those clients registered under {@code relock:{clients}:<clientId>} (another slot,
 * hence another round trip). {@link #inspectAsync} does the same without blocking. (A client
 * registers its own owner info in {@code DefaultLockClient}.)
 *
 * <p>Design: what kind a name is follows from the keys alone, in this order: a {@code mode} field
 * makes a read-write lock; a non-empty fair queue or deadline set a fair lock; a token counter a
 * fenced lock; any other lock hash a reentrant lock; a permits zset a permit-expirable semaphore; a
 * string holding an integer a semaphore or latch. A hash field that is not a positive count, a
 * string that is not an integer, or a key of another type is {@link Kind#OTHER}.
 *
 * <p>Thread-safety: stateless apart from its final fields; safe for use by several threads.
 */
final class Inspector {
    /** Prefix of the owner-info keys; the hash tag puts every client in one slot. */
    static final String OWNER_KEY_PREFIX = "relock:{clients}:";
    /** Entries listed at most per read hold and among held permits. */
    private static final int MAX_LISTED = 1000;
    /** A permit-expirable semaphore's "never" (sync spec 3.2). */
    private static final long NEVER = 922337203685477L;
    private static final String WRITE_SUFFIX = ":write";
    private static final String MODE = "mode";

    private final ScriptRunner runner;
    /** (name, field Redis shows) → the owner of this client holding it now through a cohort run, if any. */
    private final BiFunction<String, String, OptionalLong> cohortOwner;

    Inspector(ScriptRunner runner, BiFunction<String, String, OptionalLong> cohortOwner) {
        this.runner = runner;
        this.cohortOwner = cohortOwner;
    }

    /** @return the key where a client's owner info is kept */
    static String ownerKey(String clientId) {
        return OWNER_KEY_PREFIX + clientId;
    }

    /** @param name a checked, mapped name */
    LockInspection inspect(String name) {
        LockInspection s = withCohort(snapshot(name, runner.eval(Scripts.INSPECT, keys(name), args(name))));
        List<String> owners = ownerKeys(s);
        return owners.isEmpty() ? s : withOwners(s, runner.eval(Scripts.OWNER_READ, owners, List.of()));
    }

    /** As {@link #inspect}, without blocking. */
    CompletableFuture<LockInspection> inspectAsync(String name) {
        return runner.evalAsync(Scripts.INSPECT, keys(name), args(name)).thenCompose(reply -> {
            LockInspection s = withCohort(snapshot(name, reply));
            List<String> owners = ownerKeys(s);
            return owners.isEmpty() ? CompletableFuture.completedFuture(s)
                    : runner.evalAsync(Scripts.OWNER_READ, owners, List.of()).thenApply(r -> withOwners(s, r));
        });
    }

    private static List<String> keys(String name) {
        return List.of(name, Keys.prefixName("redisson_lock_queue", name),
                Keys.prefixName("redisson_lock_timeout", name), Keys.prefixName("redisson_lock_token", name),
                Keys.suffixName(name, "timeout"));
    }

    private static List<String> args(String name) {
        return List.of(Keys.suffixName(name, ""), Integer.toString(MAX_LISTED));
    }

    /** @return the inspection the inspect script's reply says, without owner info */
    private static LockInspection snapshot(String name, Object reply) {
        if (!(reply instanceof List<?> snap) || snap.size() != 10) {
            throw malformed(reply, name);
        }
        String type = string(snap.get(0), reply, name);
        Map<String, String> fields = pairs(snap.get(1), reply, name);
        OptionalLong count = snap.get(2) instanceof String s ? parse(s) : OptionalLong.empty();
        long ttl = integer(snap.get(3), reply, name);
        List<String> queue = strings(snap.get(4), reply, name);
        Map<String, String> deadlines = pairs(snap.get(5), reply, name);
        List<?> timeouts = list(snap.get(6), reply, name);
        OptionalLong token = snap.get(7) instanceof String s ? parse(s) : OptionalLong.empty();
        long heldPermitCount = integer(snap.get(8), reply, name);
        List<LockInspection.HeldPermit> permits = new ArrayList<>();
        Map<String, String> permitScores = pairs(snap.get(9), reply, name);
        permitScores.forEach((id, score) -> {
            OptionalLong d = score(score);
            permits.add(new LockInspection.HeldPermit(id, d.isPresent() && d.getAsLong() == NEVER ? OptionalLong.empty() : d));
        });

        Builder b = new Builder(name, type, ttl, token, count, permits, heldPermitCount);
        boolean fair = !queue.isEmpty() || !deadlines.isEmpty();
        if (type.equals("string")) {
            return b.build(count.isPresent() ? heldPermitCount > 0 ? Kind.PERMIT_EXPIRABLE_SEMAPHORE
                    : Kind.SEMAPHORE_OR_LATCH : Kind.OTHER);
        }
        if (!type.equals("hash") && !type.equals("none")) {
            return b.build(Kind.OTHER);
        }
        if (type.equals("none") && !fair && token.isEmpty()) {
            return b.build(heldPermitCount > 0 ? Kind.PERMIT_EXPIRABLE_SEMAPHORE : Kind.NONE);
        }
        String mode = fields.get(MODE);
        List<String[]> holders = new ArrayList<>(); // field, clientId, threadId, count, mode
        for (Map.Entry<String, String> f : fields.entrySet()) {
            if (mode != null && f.getKey().equals(MODE)) {
                continue;
            }
            OptionalLong n = parse(f.getValue());
            boolean write = mode != null && f.getKey().endsWith(WRITE_SUFFIX);
            String owner = write ? f.getKey().substring(0, f.getKey().length() - WRITE_SUFFIX.length()) : f.getKey();
            OptionalLong thread = threadIdOf(owner);
            if (n.isEmpty() || n.getAsLong() < 1 || thread.isEmpty()) {
                return b.build(Kind.OTHER); // a hash, but not a lock
            }
            b.holders.add(new Holder(f.getKey(), clientIdOf(owner), thread.getAsLong(), n.getAsLong(),
                    mode == null ? Mode.EXCLUSIVE : write ? Mode.WRITE : Mode.READ, Optional.empty()));
        }
        if (mode != null) {
            b.lockMode = Optional.of(mode.equals("write") ? Mode.WRITE : Mode.READ);
            for (int i = 0; i + 2 < timeouts.size(); i += 3) {
                String holder = String.valueOf(timeouts.get(i));
                long k = integer(timeouts.get(i + 1), reply, name);
                b.readHolds.add(new LockInspection.ReadHold(Keys.suffixName(name, holder) + ":rwlock_timeout:" + k,
                        holder, k, integer(timeouts.get(i + 2), reply, name)));
            }
            return b.build(Kind.READ_WRITE);
        }
        int position = 1;
        for (String w : queue) {
            b.queue.add(new LockInspection.Waiter(position++, w, clientIdOf(w), threadIdOf(w), score(deadlines.remove(w))));
        }
        deadlines.forEach((w, s) -> b.unqueued.add(new LockInspection.Waiter(0, w, clientIdOf(w), threadIdOf(w), score(s))));
        return b.build(fair ? Kind.FAIR : token.isPresent() ? Kind.FENCED : Kind.REENTRANT);
    }

    /** @return the owner-info keys of the inspection's holders' clients, in holder order; empty when none */
    private static List<String> ownerKeys(LockInspection s) {
        Set<String> ids = new LinkedHashSet<>();
        s.holders().forEach(h -> ids.add(h.clientId()));
        List<String> keys = new ArrayList<>();
        ids.forEach(id -> keys.add(ownerKey(id)));
        return keys;
    }

    /** @return {@code s} with each holder's owner info, as the owner-read script's reply has it */
    private static LockInspection withOwners(LockInspection s, Object reply) {
        List<String> keys = ownerKeys(s);
        if (!(reply instanceof List<?> rows) || rows.size() != keys.size()) {
            throw io.github.relock.core.internal.util.Replies.malformed(reply, Scripts.OWNER_READ, s.name(),
                    "one row of four owner fields per client");
        }
        Map<String, OwnerInfo> owners = new HashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            String id = keys.get(i).substring(OWNER_KEY_PREFIX.length());
            if (rows.get(i) instanceof List<?> row && row.size() == 4 && row.get(0) instanceof String) {
                owners.put(id, new OwnerInfo(str(row.get(0)), str(row.get(1)), str(row.get(2)), str(row.get(3))));
            }
        }
        if (owners.isEmpty()) {
            return s;
        }
        List<Holder> holders = new ArrayList<>();
        for (Holder h : s.holders()) {
            holders.add(new Holder(h.field(), h.clientId(), h.threadId(), h.holdCount(), h.mode(),
                    Optional.ofNullable(owners.get(h.clientId())), h.cohortOwner()));
        }
        return with(s, holders);
    }

    /**
     * @return {@code s} with the owner of this client that holds a reentrant lock now through a
     *     cohort run (Redis shows the run's anchor); {@code s} itself when there is none
     */
    private LockInspection withCohort(LockInspection s) {
        if (s.kind() != Kind.REENTRANT || s.holders().size() != 1) {
            return s;
        }
        Holder h = s.holders().get(0);
        OptionalLong now = cohortOwner.apply(s.name(), h.field());
        return now.isEmpty() ? s : with(s, List.of(new Holder(h.field(), h.clientId(), h.threadId(), h.holdCount(),
                h.mode(), h.owner(), now)));
    }

    /** @return {@code s} with {@code holders} */
    private static LockInspection with(LockInspection s, List<Holder> holders) {
        return new LockInspection(s.name(), s.kind(), s.redisType(), s.ttlMillis(), s.lockMode(), holders, s.queue(),
                s.unqueuedDeadlines(), s.readHolds(), s.fencingToken(), s.count(), s.heldPermits(), s.heldPermitCount());
    }

    private static String str(Object o) {
        String s = o == null ? "" : String.valueOf(o);
        return s.length() > OwnerInfo.MAX_LENGTH ? s.substring(0, OwnerInfo.MAX_LENGTH) : s;
    }

    /** Collects the parts of one inspection. */
    private static final class Builder {
        final String name;
        final String type;
        final long ttl;
        final OptionalLong token;
        final OptionalLong count;
        final List<LockInspection.HeldPermit> permits;
        final long heldPermitCount;
        Optional<Mode> lockMode = Optional.empty();
        final List<Holder> holders = new ArrayList<>();
        final List<LockInspection.Waiter> queue = new ArrayList<>();
        final List<LockInspection.Waiter> unqueued = new ArrayList<>();
        final List<LockInspection.ReadHold> readHolds = new ArrayList<>();

        Builder(String name, String type, long ttl, OptionalLong token, OptionalLong count,
                List<LockInspection.HeldPermit> permits, long heldPermitCount) {
            this.name = name;
            this.type = type;
            this.ttl = ttl;
            this.token = token;
            this.count = count;
            this.permits = permits;
            this.heldPermitCount = heldPermitCount;
        }

        LockInspection build(Kind kind) {
            boolean lock = kind == Kind.REENTRANT || kind == Kind.FAIR || kind == Kind.READ_WRITE || kind == Kind.FENCED;
            return new LockInspection(name, kind, type, ttl, lockMode, lock ? holders : List.of(), queue, unqueued,
                    readHolds, token, count, permits, heldPermitCount);
        }
    }

    /** @return the part before the last colon of {@code clientId:threadId} (client ids have none) */
    private static String clientIdOf(String owner) {
        int colon = owner.lastIndexOf(':');
        return colon < 0 ? owner : owner.substring(0, colon);
    }

    private static OptionalLong threadIdOf(String owner) {
        int colon = owner.lastIndexOf(':');
        return colon < 0 ? OptionalLong.empty() : parse(owner.substring(colon + 1));
    }

    private static OptionalLong parse(String s) {
        try {
            return OptionalLong.of(Long.parseLong(s));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** Zset scores may come back as {@code "1.7953e+12"}. */
    private static OptionalLong score(String s) {
        if (s == null) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of((long) Double.parseDouble(s));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    private static String string(Object o, Object reply, String name) {
        if (o instanceof String s) {
            return s;
        }
        throw malformed(reply, name);
    }

    private static long integer(Object o, Object reply, String name) {
        if (o instanceof Long l) {
            return l;
        }
        throw malformed(reply, name);
    }

    private static List<?> list(Object o, Object reply, String name) {
        if (o instanceof List<?> l) {
            return l;
        }
        throw malformed(reply, name);
    }

    private static List<String> strings(Object o, Object reply, String name) {
        List<String> out = new ArrayList<>();
        for (Object e : list(o, reply, name)) {
            out.add(String.valueOf(e));
        }
        return out;
    }

    private static Map<String, String> pairs(Object o, Object reply, String name) {
        List<?> flat = list(o, reply, name);
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            m.put(String.valueOf(flat.get(i)), String.valueOf(flat.get(i + 1)));
        }
        return m;
    }

    private static LockException malformed(Object reply, String name) {
        return io.github.relock.core.internal.util.Replies.malformed(reply, Scripts.INSPECT, name,
                "the inspect script's list of ten parts");
    }
}
