package io.github.relock.driver.springdata;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A Lettuce command output that builds a script reply in the SPI's form as the parser reads it:
 * bulk and status as UTF-8 {@link String}, integer as {@link Long}, nil as {@code null}, arrays of
 * any depth as {@code List<Object>}, closed by Lettuce's {@link #complete(int)} depth, so RESP3
 * maps and sets become flat lists, and booleans and doubles are folded as RESP2 would send them
 * (true 1, false nil, double as text). An error reply is left to Lettuce, which fails the command.
 *
 * <p>Thread-safety: not thread-safe; one instance serves one command on Lettuce's event loop.
 */
final class LettuceReply extends CommandOutput<byte[], byte[], Object> {

    private final ArrayDeque<List<Object>> open = new ArrayDeque<>();
    private boolean started;

    LettuceReply() {
        super(ByteArrayCodec.INSTANCE, null);
    }

    @Override
    public void multi(int count) {
        List<Object> list = new ArrayList<>(Math.max(count, 0));
        put(list);
        open.push(list);
    }

    @Override
    public void complete(int depth) {
        while (open.size() > depth) {
            open.pop();
        }
    }

    @Override
    public void set(long integer) {
        put(integer);
    }

    @Override
    public void set(boolean flag) {
        put(flag ? Long.valueOf(1L) : null);
    }

    @Override
    public void set(double number) {
        put(Double.toString(number));
    }

    /** Bulk and status strings, and nil (a null buffer). */
    @Override
    public void set(ByteBuffer bytes) {
        put(bytes == null ? null : StandardCharsets.UTF_8.decode(bytes).toString());
    }

    /** A RESP3 big number arrives as its digits; RESP2 would have sent them as a bulk string. */
    @Override
    public void setBigNumber(ByteBuffer bytes) {
        set(bytes);
    }

    @Override
    public void setSingle(ByteBuffer bytes) {
        set(bytes);
    }

    private void put(Object value) {
        List<Object> current = open.peek();
        if (current != null) {
            current.add(value);
        } else if (!started) {
            started = true;
            output = value;
        }
    }
}
