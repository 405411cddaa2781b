package io.github.relock.examples;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps the console for the demo's own output. relock logs through {@code System.Logger}, which the
 * JDK backs with java.util.logging; its INFO lines (a client opened on a driver, ...) show only with
 * {@code --verbose}, warnings always. Jedis, Lettuce/Netty and Redisson log through SLF4J, which
 * {@code slf4j-nop} on the class path silences.
 *
 * <p>Thread-safety: call from the main thread before the clients start.
 */
final class QuietLogging {
    /** Held so that the configured level is not lost when the logger is garbage-collected. */
    private static final Logger RELOCK = Logger.getLogger("io.github.relock");

    private QuietLogging() {
    }

    static void apply(boolean verbose) {
        RELOCK.setLevel(verbose ? Level.INFO : Level.WARNING);
    }
}
