package io.github.relock.spring.boot;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * Turns a start-up failure a relock user can meet into Boot's "APPLICATION FAILED TO START" report,
 * with what to do: no relock driver for the application's connection factory
 * ({@link NoRelockDriverException}).
 *
 * <p>Thread-safety: stateless.
 */
final class RelockFailureAnalyzer implements FailureAnalyzer {

    @Override
    public FailureAnalysis analyze(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof NoRelockDriverException noDriver) {
                return new FailureAnalysis(noDriver.getMessage(), capitalised(noDriver.action()) + ".", noDriver);
            }
        }
        return null;
    }

    private static String capitalised(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
