package io.github.relock.spring.boot;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Records every WARNING (or worse) logged through {@code java.util.logging} while it is open: relock's
 * {@code System.Logger}, and Lettuce's own log, which Netty sends there when SLF4J has no binding
 * (the tests run with {@code slf4j-nop}).
 *
 * <p>Thread-safety: records from any thread.
 */
final class ShutdownWarnings implements AutoCloseable {

    private final List<String> warnings = new ArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord r) {
            if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                synchronized (warnings) {
                    warnings.add(r.getLevel() + " " + r.getLoggerName() + ": " + r.getMessage()
                            + (r.getThrown() == null ? "" : " (" + r.getThrown() + ")"));
                }
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Logger root = Logger.getLogger("");

    ShutdownWarnings() {
        root.addHandler(handler);
    }

    /** @return the warnings recorded so far */
    List<String> warnings() {
        synchronized (warnings) {
            return List.copyOf(warnings);
        }
    }

    @Override
    public void close() {
        root.removeHandler(handler);
    }
}
