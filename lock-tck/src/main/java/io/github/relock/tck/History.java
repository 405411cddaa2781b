package io.github.relock.tck;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What happened in one fault run, event by event with monotonic timestamps, and the checker that
 * judges it. Actors (clients, threads, processes) record when they request, are granted (with the
 * fencing token), write to the protected resource (accepted or refused), release, are told their
 * lock was lost ({@code onLost}), or fail; the scenario records each fault and its heal.
 *
 * <p>The checker ({@link #check(FencedRegister)}) reports:
 * <ul>
 *   <li><b>overlaps</b>: a grant to one actor while another actor still believed it held the same
 *       lock, that is, after its grant and before both its release and its {@code onLost};</li>
 *   <li>of them, <b>signalled</b>: the stale holder's {@code onLost} fired later (before its
 *       release), with the longest delay from the overlapping grant to that signal;</li>
 *   <li><b>stale accepted</b>: writes the fenced register accepted with a token lower than one it
 *       had accepted before (must be 0);</li>
 *   <li><b>late accepted</b>: writes accepted from an actor after another actor's later grant
 *       (what fencing exists to prevent; possible only when tokens repeat);</li>
 *   <li><b>acknowledged lost</b>: writes an actor was told were accepted that are missing from
 *       the register at the end (must be 0);</li>
 *   <li><b>heal to progress</b>: for each heal, the time to the next grant.</li>
 * </ul>
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public final class History {

    /** What an event records. */
    public enum Op {
        /** An actor asks for the lock. */
        REQUEST,
        /** The lock was granted ({@code token} is its fencing token, or -1). */
        GRANT,
        /** The protected resource accepted a write with {@code token}. */
        WRITE_ACCEPTED,
        /** The protected resource refused a write with {@code token} (a newer one was seen). */
        WRITE_REFUSED,
        /**
         * The actor began to release the lock: from here on it no longer relies on holding it, so
         * a grant to another actor after this point is a hand-off, not an overlap (the release can
         * take effect in Redis, and wake the next holder, before the call returns).
         */
        RELEASING,
        /** The actor's release call returned ({@code detail} says how it went). */
        RELEASE,
        /** The actor's {@code onLost} fired ({@code detail} is the reason). */
        LOST,
        /** A call failed ({@code detail} is the exception). */
        ERROR,
        /** A fault began ({@code detail} says which). */
        FAULT,
        /** The fault ended. */
        HEAL
    }

    /**
     * One event.
     *
     * @param nanos monotonic time since the history began
     * @param actor who (a client name), or "fault"
     * @param op what
     * @param lock the lock name, or "" for faults
     * @param token the fencing token, or -1
     * @param detail free text
     */
    public record Event(long nanos, String actor, Op op, String lock, long token, String detail) {
    }

    /**
     * The checker's findings for one run.
     *
     * @param grants grants recorded
     * @param overlaps grants made while another actor still believed it held the lock
     * @param signalled overlaps whose stale holder was later told by {@code onLost}
     * @param maxSignalMillis the longest delay from an overlapping grant to the stale holder's
     *     {@code onLost}, or 0
     * @param staleAccepted fenced writes accepted with a token lower than an earlier accepted one
     * @param lateAccepted writes accepted from an actor after another actor had been granted the
     *     lock since this actor's own grant (a stale holder's write the token did not stop: it
     *     happens only if tokens repeat, e.g. after Redis lost the token counter)
     * @param refused fenced writes the register refused
     * @param acknowledgedLost writes acknowledged as accepted but missing from the register
     * @param healToGrantMillis for each heal, milliseconds to the next grant (heals never followed
     *     by a grant are left out)
     * @param faultToGrantMillis for each fault, milliseconds to the next grant, whether it came
     *     during the fault or after its heal
     */
    public record Verdict(int grants, int overlaps, int signalled, long maxSignalMillis, int staleAccepted,
            int lateAccepted, int refused, int acknowledgedLost, List<Long> healToGrantMillis,
            List<Long> faultToGrantMillis) {

        /** @return overlaps nobody was ever told about */
        public int silentOverlaps() {
            return overlaps - signalled;
        }
    }

    private final long origin = System.nanoTime();
    private final List<Event> events = new CopyOnWriteArrayList<>();

    /**
     * Records an event now.
     *
     * @param actor who
     * @param op what
     * @param lock which lock ("" for none)
     * @param token fencing token or -1
     * @param detail free text
     */
    public void record(String actor, Op op, String lock, long token, String detail) {
        events.add(new Event(System.nanoTime() - origin, actor, op, lock, token, detail));
    }

    /**
     * @param what the fault that begins now
     */
    public void fault(String what) {
        record("fault", Op.FAULT, "", -1, what);
    }

    /** Records that the last fault ended now. */
    public void heal() {
        record("fault", Op.HEAL, "", -1, "");
    }

    /** @return the events so far, in time order */
    public List<Event> events() {
        List<Event> copy = new ArrayList<>(events);
        copy.sort(Comparator.comparingLong(Event::nanos));
        return copy;
    }

    /**
     * Judges the run.
     *
     * @param register the fenced resource the actors wrote to, or {@code null} if none
     * @return the verdict
     */
    public Verdict check(FencedRegister register) {
        List<Event> all = events();
        List<Hold> holds = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            Event g = all.get(i);
            if (g.op() != Op.GRANT) {
                continue;
            }
            long end = Long.MAX_VALUE;
            long lost = -1;
            for (int j = i + 1; j < all.size(); j++) {
                Event e = all.get(j);
                if (!e.actor().equals(g.actor()) || !e.lock().equals(g.lock())) {
                    continue;
                }
                if (e.op() == Op.LOST && lost < 0) {
                    lost = e.nanos();
                } else if (e.op() == Op.RELEASING || e.op() == Op.RELEASE || e.op() == Op.GRANT) {
                    end = e.nanos();
                    break;
                }
            }
            holds.add(new Hold(g, end, lost));
        }
        int overlaps = 0;
        int signalled = 0;
        long maxSignal = 0;
        for (Hold stale : holds) {
            for (Hold next : holds) {
                if (next == stale || next.grant.actor().equals(stale.grant.actor())
                        || !next.grant.lock().equals(stale.grant.lock())) {
                    continue;
                }
                long at = next.grant.nanos();
                boolean believed = at > stale.grant.nanos() && at < stale.end && (stale.lost < 0 || at < stale.lost);
                if (believed) {
                    overlaps++;
                    if (stale.lost >= 0) {
                        signalled++;
                        maxSignal = Math.max(maxSignal, (stale.lost - at) / 1_000_000);
                    }
                }
            }
        }
        int grants = (int) all.stream().filter(e -> e.op() == Op.GRANT).count();
        int refused = (int) all.stream().filter(e -> e.op() == Op.WRITE_REFUSED).count();
        int acknowledged = (int) all.stream().filter(e -> e.op() == Op.WRITE_ACCEPTED).count();
        int stale = register == null ? 0 : register.staleAccepted();
        int lostWrites = register == null ? 0 : Math.max(0, acknowledged - register.accepted().size());
        List<Long> healToGrant = new ArrayList<>();
        List<Long> faultToGrant = new ArrayList<>();
        for (Event h : all) {
            if (h.op() == Op.HEAL || h.op() == Op.FAULT) {
                List<Long> into = h.op() == Op.HEAL ? healToGrant : faultToGrant;
                all.stream().filter(e -> e.op() == Op.GRANT && e.nanos() >= h.nanos()).findFirst()
                        .ifPresent(g -> into.add((g.nanos() - h.nanos()) / 1_000_000));
            }
        }
        int late = 0;
        for (Event w : all) {
            if (w.op() != Op.WRITE_ACCEPTED) {
                continue;
            }
            long ownGrant = all.stream().filter(e -> e.op() == Op.GRANT && e.actor().equals(w.actor())
                    && e.lock().equals(w.lock()) && e.nanos() <= w.nanos()).mapToLong(Event::nanos).max().orElse(-1);
            boolean supplanted = all.stream().anyMatch(e -> e.op() == Op.GRANT && !e.actor().equals(w.actor())
                    && e.lock().equals(w.lock()) && e.nanos() > ownGrant && e.nanos() < w.nanos());
            if (supplanted) {
                late++;
            }
        }
        return new Verdict(grants, overlaps, signalled, maxSignal, stale, late, refused, lostWrites, healToGrant,
                faultToGrant);
    }

    /** @return the events, one per line, for a failure message */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        for (Event e : events()) {
            out.append(String.format("%n%8.1f ms  %-10s %-14s %s%s%s", e.nanos() / 1e6, e.actor(), e.op(), e.lock(),
                    e.token() >= 0 ? " token " + e.token() : "", e.detail().isEmpty() ? "" : " " + e.detail()));
        }
        return out.toString();
    }

    private record Hold(Event grant, long end, long lost) {
    }
}
