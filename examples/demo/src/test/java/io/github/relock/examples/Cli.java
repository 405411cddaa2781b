package io.github.relock.examples;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Runs {@link Main#run} in-process and keeps what it printed.
 *
 * @param exitCode the exit code
 * @param out standard output
 * @param err standard error
 */
record Cli(int exitCode, String out, String err) {

    /** Runs with an empty environment (so {@code REDIS_URL} of the test run does not leak in). */
    static Cli run(String... args) {
        return runWithEnv(Map.of(), args);
    }

    static Cli runWithEnv(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = Main.run(args, env, o, e);
        }
        return new Cli(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
    }
}
