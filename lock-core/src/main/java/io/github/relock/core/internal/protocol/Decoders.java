package io.github.relock.core.internal.protocol;

import io.github.relock.core.internal.util.Replies;
import io.github.relock.spi.Script;
import java.util.List;

/**
 * The readers of the scripts' replies, one per reply shape, each naming the script and the lock
 * in the error a malformed reply gets ({@link Replies}).
 *
 * <p>Thread-safety: stateless.
 */
final class Decoders {
    /** An acquire script's answer when a non-reentrant lock's holder (or a read holder, for the write lock) asks again. */
    private static final long REFUSED = -3;
    private static final String ACQUIRE_REPLY = "nil (acquired), -3 (refused) or the holder's TTL in ms (-1 or more)";
    private static final String FENCED_REPLY = "{1, token} or {0, pttl}";
    private static final String RELEASE_REPLY = "{code, n}: {1, heard} released, {2, 0} handed off, {0, 0} still held,"
            + " {-1, n} free, {-2, 0} held by another owner";
    private static final String STATE_REPLY = "{exists 0 or 1, hold count, pttl}";
    private static final String FLAG_REPLY = "1 or 0";

    private Decoders() {
    }

    /** nil: acquired; -3: refused (an upgrade when {@code upgrade}); else the PTTL to wait. */
    static Call.Decoder<Acquire> acquire(Script script, String name, boolean upgrade) {
        return reply -> {
            if (reply == null) {
                return Acquire.ACQUIRED;
            }
            long ttl = Replies.integer(reply, script, name, ACQUIRE_REPLY);
            if (ttl == REFUSED) {
                return new Acquire.Refused(upgrade);
            }
            if (ttl < -1) {
                throw Replies.malformed(reply, script, name, ACQUIRE_REPLY);
            }
            return new Acquire.Busy(ttl);
        };
    }

    /** {1, token}: acquired with that token; {0, pttl}: busy. */
    static Call.Decoder<Acquire> fencedAcquire(Script script, String name) {
        return reply -> {
            long[] r = Replies.integers(reply, 2, script, name, FENCED_REPLY);
            if (r[0] == 1) {
                return new Acquire.Acquired(r[1]);
            }
            if (r[0] != 0 || r[1] < -1) {
                throw Replies.malformed(reply, script, name, FENCED_REPLY);
            }
            return new Acquire.Busy(r[1]);
        };
    }

    /** {code, n} of every release script. */
    static Call.Decoder<Release> release(Script script, String name) {
        return reply -> {
            long[] r = Replies.integers(reply, 2, script, name, RELEASE_REPLY);
            if (r[0] < -2 || r[0] > 2) {
                throw Replies.malformed(reply, script, name, RELEASE_REPLY);
            }
            return switch ((int) r[0]) {
                case 1 -> new Release.Released(r[1]);
                case 0 -> Release.STILL_HELD;
                case -1 -> new Release.NotHeld(true);
                case -2 -> new Release.NotHeld(false);
                case 2 -> new Release.HandedOff();
                default -> throw Replies.malformed(reply, script, name, RELEASE_REPLY);
            };
        };
    }

    /** 1 or 0 as a boolean (expire: set or not held; force release: deleted or not). */
    static Call.Decoder<Boolean> flag(Script script, String name) {
        return reply -> {
            long v = Replies.integer(reply, script, name, FLAG_REPLY);
            if (v != 0 && v != 1) {
                throw Replies.malformed(reply, script, name, FLAG_REPLY);
            }
            return v == 1;
        };
    }

    /** {exists, count, pttl}. */
    static Call.Decoder<LockState> state(Script script, String name) {
        return reply -> {
            long[] r = Replies.integers(reply, 3, script, name, STATE_REPLY);
            return new LockState(r[0] == 1, (int) r[1], r[2]);
        };
    }

    /** A reply nobody reads (a give-up). */
    static Call.Decoder<Void> ignored() {
        return reply -> null;
    }

    /** @return {@code args} plus "resolve" when the mode is {@link AttemptMode#RESOLVE}, else plus "" */
    static List<String> withMode(AttemptMode mode, String... args) {
        String[] all = java.util.Arrays.copyOf(args, args.length + 1);
        all[args.length] = mode == AttemptMode.RESOLVE ? "resolve" : "";
        return List.of(all);
    }
}
