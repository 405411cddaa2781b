package io.github.relock.examples;

/**
 * A failure the command line reports in one line and turns into an exit code, without a stack
 * trace: a usage error, or a Redis that cannot be reached.
 *
 * <p>Thread-safety: immutable.
 */
final class CliException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    CliException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    static CliException usage(String message) {
        return new CliException(Main.EXIT_USAGE, message);
    }

    int exitCode() {
        return exitCode;
    }
}
