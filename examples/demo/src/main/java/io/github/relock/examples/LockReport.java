package io.github.relock.examples;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders a {@link LockState} for people (aligned text) or scripts (one JSON object per line).
 *
 * <p>Thread-safety: stateless.
 */
final class LockReport {
    private LockReport() {
    }

    /**
     * @param s the state
     * @param nowMs this machine's wall clock, to show how far away fair-lock deadlines are (the fair
     *     lock itself compares them with its clients' wall clocks)
     * @return lines without a trailing newline
     */
    static String text(LockState s, long nowMs) {
        if (!s.found()) {
            return s.reason();
        }
        StringBuilder sb = new StringBuilder();
        sb.append(s.name()).append("  ").append(s.kind().label()).append(" lock");
        if (s.mode() != null) {
            sb.append(", mode ").append(s.mode());
        }
        sb.append(", ").append(s.holders().isEmpty() ? "free" : "held").append(", ").append(ttl(s.ttlMs()));
        if (s.kind() == LockState.Kind.REENTRANT) {
            sb.append("  (a fair lock with no waiters, a spin lock or a non-reentrant lock looks the same)");
        }
        if (s.kind() == LockState.Kind.FAIR && s.holders().isEmpty()) {
            sb.append("  (the head waiter has not taken it yet)");
        }
        sb.append('\n');
        if (s.fencingToken() != null) {
            sb.append("  fencing token: ").append(s.fencingToken()).append(" (the last granted; the next grant takes ")
                    .append(s.fencingToken() + 1).append(")\n");
        }
        if (!s.holders().isEmpty()) {
            sb.append("  holders (").append(s.holders().size()).append(")\n");
            int w = s.holders().stream().mapToInt(h -> h.field().length()).max().orElse(0);
            for (LockState.Holder h : s.holders()) {
                sb.append("    ").append(pad(h.field(), w)).append("  ").append(pad(h.role(), 9))
                        .append("  hold count ").append(h.holdCount());
                if (h.threadId() != null && h.threadId() < 0) {
                    sb.append("  (a relock lease)");
                }
                sb.append('\n');
            }
        }
        if (s.kind() == LockState.Kind.FAIR) {
            sb.append("  queue (").append(s.queue().size()).append(s.queue().isEmpty() ? ")\n" : ", head first)\n");
            int w = s.queue().stream().mapToInt(q -> q.field().length()).max().orElse(0);
            for (LockState.Waiter q : s.queue()) {
                sb.append("    ").append(q.position()).append(". ").append(pad(q.field(), w)).append("  ")
                        .append(deadline(q.deadlineEpochMs(), nowMs)).append('\n');
            }
            for (LockState.Waiter q : s.unqueuedDeadlines()) {
                sb.append("    deadline without a queue entry: ").append(q.field()).append("  ")
                        .append(deadline(q.deadlineEpochMs(), nowMs)).append('\n');
            }
        }
        if (s.kind() == LockState.Kind.READ_WRITE && s.readTimeouts().isEmpty()) {
            sb.append("  read-hold timeout keys: none (only read holds have them)\n");
        } else if (s.kind() == LockState.Kind.READ_WRITE) {
            sb.append("  read-hold timeout keys (").append(s.readTimeouts().size()).append(")\n");
            int w = s.readTimeouts().stream().mapToInt(r -> r.key().length()).max().orElse(0);
            for (LockState.ReadTimeout r : s.readTimeouts()) {
                sb.append("    ").append(pad(r.key(), w)).append("  ")
                        .append(r.ttlMs() == -2 ? "missing (this hold counts as expired)" : ttl(r.ttlMs())).append('\n');
            }
        }
        return sb.toString().stripTrailing();
    }

    /** @return the state as one line of JSON */
    static String json(LockState s, long nowMs, String redis) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", s.name());
        m.put("found", s.found());
        m.put("type", s.kind().label());
        m.put("redis", redis);
        if (!s.found()) {
            m.put("reason", s.reason());
            return Json.write(m);
        }
        m.put("mode", s.mode());
        m.put("locked", !s.holders().isEmpty());
        m.put("ttlMs", s.ttlMs());
        List<Object> holders = new ArrayList<>();
        for (LockState.Holder h : s.holders()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("field", h.field());
            o.put("clientId", h.clientId());
            o.put("threadId", h.threadId());
            o.put("holdCount", h.holdCount());
            o.put("role", h.role());
            holders.add(o);
        }
        m.put("holders", holders);
        if (s.kind() == LockState.Kind.FAIR) {
            m.put("queue", waiters(s.queue(), nowMs));
            m.put("unqueuedDeadlines", waiters(s.unqueuedDeadlines(), nowMs));
        }
        if (s.kind() == LockState.Kind.FENCED) {
            m.put("fencingToken", s.fencingToken());
        }
        if (s.kind() == LockState.Kind.READ_WRITE) {
            List<Object> keys = new ArrayList<>();
            for (LockState.ReadTimeout r : s.readTimeouts()) {
                Map<String, Object> o = new LinkedHashMap<>();
                o.put("key", r.key());
                o.put("holder", r.holder());
                o.put("index", r.index());
                o.put("ttlMs", r.ttlMs());
                keys.add(o);
            }
            m.put("readTimeouts", keys);
        }
        return Json.write(m);
    }

    private static List<Object> waiters(List<LockState.Waiter> ws, long nowMs) {
        List<Object> out = new ArrayList<>();
        for (LockState.Waiter q : ws) {
            Map<String, Object> o = new LinkedHashMap<>();
            if (q.position() > 0) {
                o.put("position", q.position());
            }
            o.put("field", q.field());
            o.put("clientId", q.clientId());
            o.put("threadId", q.threadId());
            o.put("deadlineEpochMs", q.deadlineEpochMs());
            o.put("deadlineInMs", q.deadlineEpochMs() == null ? null : q.deadlineEpochMs() - nowMs);
            out.add(o);
        }
        return out;
    }

    private static String deadline(Long epochMs, long nowMs) {
        if (epochMs == null) {
            return "no deadline entry (inconsistent queue)";
        }
        long in = epochMs - nowMs;
        return "deadline " + Instant.ofEpochMilli(epochMs) + " (" + (in >= 0 ? "in " + seconds(in) : seconds(-in) + " ago")
                + ")";
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
