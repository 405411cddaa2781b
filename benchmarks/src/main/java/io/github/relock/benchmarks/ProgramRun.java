package io.github.relock.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A one-shot measuring program ({@link HeldLocksProbe}, {@link CrossJvmProbe}) in a JVM of its
 * own, on this JVM's java binary and class path. Its output (standard output and error) goes to a
 * log file; its answer is the last line that starts with {@code RESULT }, as {@code key=value}
 * pairs separated by spaces.
 *
 * <p>Thread-safety: not thread-safe; one thread drives it.
 */
final class ProgramRun {
    private static final String RESULT = "RESULT ";

    private final Process process;
    private final Path log;

    private ProgramRun(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * @param jvmArgs options of the JVM (heap, GC, system properties)
     * @param main the class whose {@code main} runs
     * @param args its arguments
     * @param log where its output goes
     * @return the running program
     * @throws IOException if it cannot be started
     */
    static ProgramRun start(List<String> jvmArgs, Class<?> main, List<String> args, Path log) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new ProgramRun(p, log);
    }

    /**
     * Waits for the program to end and reads its answer.
     *
     * @param timeout how long it may run
     * @return its {@code RESULT} line's pairs
     * @throws IllegalStateException if it ran too long, failed or printed no result (it is killed)
     * @throws InterruptedException if interrupted while waiting
     * @throws IOException if its log cannot be read
     */
    Map<String, String> result(Duration timeout) throws InterruptedException, IOException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("still running after " + timeout + ": killed");
        }
        String result = null;
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            if (line.startsWith(RESULT)) {
                result = line;
            }
        }
        if (process.exitValue() != 0 || result == null) {
            throw new IllegalStateException("exited with " + process.exitValue() + " and "
                    + (result == null ? "no result" : "a result"));
        }
        Map<String, String> kv = new HashMap<>();
        for (String part : result.substring(RESULT.length()).split(" ")) {
            int eq = part.indexOf('=');
            kv.put(part.substring(0, eq), part.substring(eq + 1));
        }
        return kv;
    }

    /** Kills the program if it still runs. */
    void destroy() {
        process.destroyForcibly();
    }
}
