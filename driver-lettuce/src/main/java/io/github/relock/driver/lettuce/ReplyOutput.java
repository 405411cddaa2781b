package io.github.relock.driver.lettuce;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds a script reply in the SPI's normal form straight from Lettuce's RESP parser: nil →
 * {@code null}, integer → {@link Long}, bulk or status → {@link String} (UTF-8), array →
 * {@code List<Object>}. Error replies are left to {@link CommandOutput#setError}, which makes
 * Lettuce fail the command.
 *
 * <p>Why not {@code ScriptOutputType}: {@code MULTI} wraps a top-level scalar into a one-element
 * list (so {@code return 42} and {@code return {42}} look the same) and {@code OBJECT} rejects a
 * top-level bulk or status reply. This output keeps the reply's shape exactly.
 *
 * <p>RESP3 types (only seen when a script calls {@code redis.setresp(3)} on a RESP3 connection)
 * are folded to what Redis would send a RESP2 client, so the result does not depend on the
 * protocol the application's client negotiated: boolean true → {@code 1L}, false → {@code null},
 * double and big number → {@link String}, map → flat list of key, value, ..., set → list.
 *
 * <p>Thread-safety: not thread-safe; Lettuce uses one instance per command on one event-loop thread.
 */
final class ReplyOutput extends CommandOutput<String, String, Object> {

    /** An array being filled: the elements so far and how many are still to come. */
    private static final class Frame {
        final List<Object> elements;
        int remaining;

        Frame(int count) {
            this.elements = new ArrayList<>(count);
            this.remaining = count;
        }
    }

    private final ArrayDeque<Frame> open = new ArrayDeque<>();

    ReplyOutput() {
        super(StringCodec.UTF8, null);
    }

    /** Bulk strings, and (through {@link CommandOutput}'s defaults) status replies and RESP3 big numbers. */
    @Override
    public void set(ByteBuffer bytes) {
        add(bytes == null ? null : StandardCharsets.UTF_8.decode(bytes).toString());
    }

    @Override
    public void set(long integer) {
        add(integer);
    }

    @Override
    public void set(double number) {
        add(format(number));
    }

    @Override
    public void set(boolean value) {
        add(value ? Long.valueOf(1L) : null);
    }

    @Override
    public void multi(int count) {
        // Lettuce calls this for arrays and sets, and with 2 * entries for maps (multiMap's default).
        if (count < 0) {
            add(null); // RESP2 null array
        } else if (count == 0) {
            add(new ArrayList<>(0));
        } else {
            open.push(new Frame(count));
        }
    }

    @Override
    public void complete(int depth) {
        // Nesting is tracked by element counts in add(); Lettuce's depth callbacks are not needed.
    }

    /** Appends a value to the innermost open array, closing every array it completes. */
    private void add(Object value) {
        Object v = value;
        while (true) {
            Frame top = open.peek();
            if (top == null) {
                output = v;
                return;
            }
            top.elements.add(v);
            if (--top.remaining > 0) {
                return;
            }
            open.pop();
            v = top.elements;
        }
    }

    private static String format(double d) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        return BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
    }
}
