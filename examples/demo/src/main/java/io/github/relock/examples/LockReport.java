package io.github.relock.examples;

import io.github.relock.api.LockInspection;
import io.github.relock.api.LockInspection.Kind;
import io.github.relock.api.OwnerInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Renders a {@link LockInspection} (from {@code LockClient.inspect}) for people (aligned text) or
 * scripts (one JSON object per line).
 *
 * <p>Thread-safety: stateless.
 */
final class LockReport {
    private LockReport() {
    }

    /** @return the one-line answer for a name that holds nothing, or a key that is none of ours */
    static String reason(LockInspection s) {
        String n = s.name();
        if (s.kind() == Kind.NONE) {
            return "no lock named '" + n + "': nobody holds it or waits for it (no key '" + n + "', no fair queue '"
                    + LockKeys.fairQueue(n) + "')";
        }
        if (s.redisType().equals("hash")) {
            return "'" + n + "' is a hash but not a lock: a field's value is not a hold count, or it names no thread";
        }
        return "'" + n + "' is a " + s.redisType() + " key, not a lock: relock and Redisson keep a lock in a hash";
    }

    private static String label(Kind kind) {
        return kind.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * @param s the inspection
     * @param nowMs this machine's wall clock, to show how far away deadlines are (the fair lock
     *     itself compares them with its clients' wall clocks)
     * @return lines without a trailing newline
     */
    static String text(LockInspection s, long nowMs) {
        if (!s.found()) {
            return reason(s);
        }
        if (s.kind() == Kind.SEMAPHORE_OR_LATCH || s.kind() == Kind.PERMIT_EXPIRABLE_SEMAPHORE) {
            return syncText(s, nowMs);
        }
        StringBuilder sb = new StringBuilder();
        sb.append(s.name()).append("  ").append(label(s.kind())).append(" lock");
        s.lockMode().ifPresent(m -> sb.append(", mode ").append(m.name().toLowerCase(Locale.ROOT)));
        sb.append(", ").append(s.holders().isEmpty() ? "free" : "held").append(", ").append(ttl(s.ttlMillis()));
        if (s.kind() == Kind.REENTRANT) {
            sb.append("  (a fair lock with no waiters, a spin lock or a non-reentrant lock looks the same)");
        }
        if (s.kind() == Kind.FAIR && s.holders().isEmpty()) {
            sb.append("  (the head waiter has not taken it yet)");
        }
        sb.append('\n');
        if (s.fencingToken().isPresent()) {
            long t = s.fencingToken().getAsLong();
            sb.append("  fencing token: ").append(t).append(" (the last granted; the next grant takes ")
                    .append(t + 1).append(")\n");
        }
        if (!s.holders().isEmpty()) {
            sb.append("  holders (").append(s.holders().size()).append(")\n");
            int w = s.holders().stream().mapToInt(h -> h.field().length()).max().orElse(0);
            for (LockInspection.Holder h : s.holders()) {
                sb.append("    ").append(pad(h.field(), w)).append("  ").append(pad(role(h), 9))
                        .append("  hold count ").append(h.holdCount());
                if (h.threadId() < 0) {
                    sb.append("  (a relock lease)");
                }
                h.cohortOwner().ifPresent(t -> sb.append("  cohort: held now by thread ").append(t)
                        .append(" of this client (Redis shows the run's first holder)"));
                h.owner().ifPresent(o -> sb.append("  owner: ").append(owner(o)));
                sb.append('\n');
            }
        }
        if (s.kind() == Kind.FAIR) {
            sb.append("  queue (").append(s.queue().size()).append(s.queue().isEmpty() ? ")\n" : ", head first)\n");
            int w = s.queue().stream().mapToInt(q -> q.field().length()).max().orElse(0);
            for (LockInspection.Waiter q : s.queue()) {
                sb.append("    ").append(q.position()).append(". ").append(pad(q.field(), w)).append("  ")
                        .append(deadline(q.deadlineEpochMillis(), nowMs)).append('\n');
            }
            for (LockInspection.Waiter q : s.unqueuedDeadlines()) {
                sb.append("    deadline without a queue entry: ").append(q.field()).append("  ")
                        .append(deadline(q.deadlineEpochMillis(), nowMs)).append('\n');
            }
        }
        if (s.kind() == Kind.READ_WRITE && s.readHolds().isEmpty()) {
            sb.append("  read-hold timeout keys: none (only read holds have them)\n");
        } else if (s.kind() == Kind.READ_WRITE) {
            sb.append("  read-hold timeout keys (").append(s.readHolds().size()).append(")\n");
            int w = s.readHolds().stream().mapToInt(r -> r.key().length()).max().orElse(0);
            for (LockInspection.ReadHold r : s.readHolds()) {
                sb.append("    ").append(pad(r.key(), w)).append("  ")
                        .append(r.ttlMillis() == -2 ? "missing (this hold counts as expired)" : ttl(r.ttlMillis()))
                        .append('\n');
            }
        }
        return sb.toString().stripTrailing();
    }

    private static String syncText(LockInspection s, long nowMs) {
        StringBuilder sb = new StringBuilder(s.name()).append("  ");
        long available = s.count().orElse(0);
        if (s.kind() == Kind.PERMIT_EXPIRABLE_SEMAPHORE) {
            sb.append("permit-expirable semaphore, ").append(available).append(" available, ").append(s.heldPermitCount())
                    .append(" held (").append(available + s.heldPermitCount()).append(" in all), ")
                    .append(ttl(s.ttlMillis())).append('\n');
            sb.append("  held permits (").append(s.heldPermitCount()).append(", earliest deadline first)\n");
            for (LockInspection.HeldPermit p : s.heldPermits()) {
                sb.append("    ").append(p.id()).append("  ").append(permitDeadline(p.deadlineEpochMillis(), nowMs))
                        .append('\n');
            }
        } else {
            sb.append("semaphore or count-down latch, count ").append(available).append(", ")
                    .append(ttl(s.ttlMillis())).append("  (both keep one string count: as a semaphore, ")
                    .append(available).append(" permit(s) available; as a latch, ").append(available)
                    .append(" count-down(s) to go)");
        }
        return sb.toString().stripTrailing();
    }

    /** @return the inspection as one line of JSON */
    static String json(LockInspection s, long nowMs, String redis) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", s.name());
        m.put("found", s.found());
        boolean sync = s.kind() == Kind.SEMAPHORE_OR_LATCH || s.kind() == Kind.PERMIT_EXPIRABLE_SEMAPHORE;
        m.put("type", !s.found() ? (s.kind() == Kind.NONE ? "none" : "not-a-lock")
                : s.kind() == Kind.SEMAPHORE_OR_LATCH ? "semaphore-or-latch" : label(s.kind()));
        m.put("redis", redis);
        if (!s.found()) {
            m.put("reason", reason(s));
            return Json.write(m);
        }
        if (sync) {
            m.put("count", s.count().isPresent() ? s.count().getAsLong() : null);
            m.put("ttlMs", s.ttlMillis());
            if (s.kind() == Kind.PERMIT_EXPIRABLE_SEMAPHORE) {
                m.put("heldPermits", s.heldPermitCount());
                List<Object> permits = new ArrayList<>();
                for (LockInspection.HeldPermit p : s.heldPermits()) {
                    Map<String, Object> o = new LinkedHashMap<>();
                    o.put("id", p.id());
                    putDeadline(o, p.deadlineEpochMillis(), nowMs);
                    permits.add(o);
                }
                m.put("permits", permits);
            }
            return Json.write(m);
        }
        m.put("mode", s.lockMode().map(x -> x.name().toLowerCase(Locale.ROOT)).orElse(null));
        m.put("locked", s.locked());
        m.put("ttlMs", s.ttlMillis());
        List<Object> holders = new ArrayList<>();
        for (LockInspection.Holder h : s.holders()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("field", h.field());
            o.put("clientId", h.clientId());
            o.put("threadId", h.threadId());
            o.put("holdCount", h.holdCount());
            o.put("role", role(h));
            o.put("owner", h.owner().map(LockReport::ownerJson).orElse(null));
            o.put("cohortOwner", h.cohortOwner().isPresent() ? h.cohortOwner().getAsLong() : null);
            holders.add(o);
        }
        m.put("holders", holders);
        if (s.kind() == Kind.FAIR) {
            m.put("queue", waiters(s.queue(), nowMs));
            m.put("unqueuedDeadlines", waiters(s.unqueuedDeadlines(), nowMs));
        }
        if (s.kind() == Kind.FENCED) {
            m.put("fencingToken", s.fencingToken().getAsLong());
        }
        if (s.kind() == Kind.READ_WRITE) {
            List<Object> keys = new ArrayList<>();
            for (LockInspection.ReadHold r : s.readHolds()) {
                Map<String, Object> o = new LinkedHashMap<>();
                o.put("key", r.key());
                o.put("holder", r.holderField());
                o.put("index", r.index());
                o.put("ttlMs", r.ttlMillis());
                keys.add(o);
            }
            m.put("readTimeouts", keys);
        }
        return Json.write(m);
    }

    private static String role(LockInspection.Holder h) {
        return h.mode().name().toLowerCase(Locale.ROOT);
    }

    private static String owner(OwnerInfo o) {
        return (o.application().isEmpty() ? "?" : o.application()) + (o.version().isEmpty() ? "" : " " + o.version())
                + " on " + (o.host().isEmpty() ? "?" : o.host()) + (o.instance().isEmpty() ? "" : ", instance " + o.instance());
    }

    private static Map<String, Object> ownerJson(OwnerInfo o) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("host", o.host());
        m.put("application", o.application());
        m.put("instance", o.instance());
        m.put("version", o.version());
        return m;
    }

    private static List<Object> waiters(List<LockInspection.Waiter> ws, long nowMs) {
        List<Object> out = new ArrayList<>();
        for (LockInspection.Waiter q : ws) {
            Map<String, Object> o = new LinkedHashMap<>();
            if (q.position() > 0) {
                o.put("position", q.position());
            }
            o.put("field", q.field());
            o.put("clientId", q.clientId());
            o.put("threadId", q.threadId().isPresent() ? q.threadId().getAsLong() : null);
            putDeadline(o, q.deadlineEpochMillis(), nowMs);
            out.add(o);
        }
        return out;
    }

    private static void putDeadline(Map<String, Object> o, OptionalLong deadline, long nowMs) {
        o.put("deadlineEpochMs", deadline.isPresent() ? deadline.getAsLong() : null);
        o.put("deadlineInMs", deadline.isPresent() ? deadline.getAsLong() - nowMs : null);
    }

    private static String deadline(OptionalLong epochMs, long nowMs) {
        if (epochMs.isEmpty()) {
            return "no deadline entry (inconsistent queue)";
        }
        long in = epochMs.getAsLong() - nowMs;
        return "deadline " + Instant.ofEpochMilli(epochMs.getAsLong()) + " ("
                + (in >= 0 ? "in " + seconds(in) : seconds(-in) + " ago") + ")";
    }

    private static String permitDeadline(OptionalLong epochMs, long nowMs) {
        if (epochMs.isEmpty()) {
            return "never expires";
        }
        long in = epochMs.getAsLong() - nowMs;
        String secs = seconds(Math.abs(in));
        return "deadline " + Instant.ofEpochMilli(epochMs.getAsLong()) + " (" + (in >= 0 ? "in " + secs : secs
                + " ago: any client's next operation reclaims it") + ")";
    }

    static String ttl(long ttlMs) {
        if (ttlMs == -1) {
            return "no TTL (never expires)";
        }
        if (ttlMs == -2) {
            return "no lock key";
        }
        return "TTL " + seconds(ttlMs);
    }

    private static String seconds(long ms) {
        return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }
}
