package io.github.relock.spring.boot;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * Turns the start-up failures a relock user can meet into Boot's "APPLICATION FAILED TO START"
 * report, with what to do: no relock driver for the application's connection factory
 * ({@link NoRelockDriverException}), a {@code relock.*} value relock refuses
 * ({@link InvalidRelockPropertyException}: the property, the value given, what is allowed), and a {@code RelockLockRegistry} declared by the application on
 * Spring Integration 6 (Spring Boot 3.5), where its locks cannot load
 * ({@code ClassNotFoundException}/{@code NoClassDefFoundError} for {@code DistributedLock}).
 *
 * <p>Thread-safety: stateless.
 */
final class RelockFailureAnalyzer implements FailureAnalyzer {

    private static final String DISTRIBUTED_LOCK = "org.springframework.integration.support.locks.DistributedLock";

    @Override
    public FailureAnalysis analyze(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof NoRelockDriverException noDriver) {
                return new FailureAnalysis(noDriver.getMessage(), capitalised(noDriver.action()) + ".", noDriver);
            }
            if (t instanceof InvalidRelockPropertyException invalid) {
                return new FailureAnalysis("Invalid value '" + invalid.value() + "' for " + invalid.property()
                        + ": " + invalid.reason() + ".",
                        "Change " + invalid.property() + " (it " + invalid.allowed() + "), or remove it to use"
                                + " relock's default.",
                        invalid);
            }
            if ((t instanceof ClassNotFoundException || t instanceof NoClassDefFoundError)
                    && String.valueOf(t.getMessage()).replace('/', '.').contains(DISTRIBUTED_LOCK)) {
                String found = RelockIntegrationAutoConfiguration.SpringIntegrationTooOld.versionOnClassPath();
                return new FailureAnalysis(
                        "relock-spring-integration's RelockLockRegistry needs Spring Integration 7 (Spring Boot 4),"
                                + " but this application has Spring Integration " + found + ", which lacks "
                                + DISTRIBUTED_LOCK + ".",
                        "Upgrade to Spring Boot 4 (Spring Integration 7), or remove relock-spring-integration and"
                                + " the RelockLockRegistry bean: on Spring Boot 3.5 use Spring Integration's"
                                + " RedisLockRegistry, or relock's DistributedLock directly.",
                        t);
            }
        }
        return null;
    }

    private static String capitalised(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
