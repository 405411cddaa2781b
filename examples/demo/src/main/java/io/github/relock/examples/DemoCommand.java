package io.github.relock.examples;

import io.github.relock.embeddedredis.RedisProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code demo}, the default command: the mixed fleet on one reentrant lock, then one fair lock.
 *
 * <p>Thread-safety: one instance per command line run; not shared.
 */
@Command(name = "demo", sortOptions = false, descriptionHeading = "%n", optionListHeading = "%nOptions:%n",
        header = "Run the mixed-fleet demo (the default command).",
        description = {
            "relock over Jedis, relock over Lettuce and Redisson contend for one reentrant lock (then one fair"
                    + " lock), each worker doing GET counter, think, SET counter+1 inside it. Prints a line per"
                    + " second, then per lock: acquisitions and wait p50/p99 per client, the counter against the"
                    + " acquisitions (no lost update), overlaps, re-entries, and for the fair lock the hand-over order."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every check passed",
            "1:a check failed (the summary marks it FAIL)",
            "2:usage error: unknown option, bad value, malformed URL",
            "3:Redis unreachable or refused the credentials; without a URL, the embedded server could not start"})
final class DemoCommand implements Callable<Integer> {
    private final Map<String, String> env;
    private final PrintStream out;

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Option(names = "--seconds", paramLabel = "N", defaultValue = "10",
            description = "How long to run, split between the two locks, 1 to 3600 (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--workers", paramLabel = "N", defaultValue = "2",
            description = "Worker threads per client, 1 to 64 (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--clients", paramLabel = "LIST",
            description = "Which of jedis,lettuce,redisson take part, comma-separated (default: all three).")
    String clients;

    @Option(names = "--url", paramLabel = "URL",
            description = "The Redis to use, " + RedisTarget.FORMAT + " (default: $REDIS_URL; unset: start the"
                    + " embedded redis-server " + RedisProcess.VERSION + " on a free loopback port and stop it at the end).")
    String url;

    @Option(names = "--verbose", description = "Also show relock's INFO log lines.")
    boolean verbose;

    DemoCommand(Map<String, String> env, PrintStream out) {
        this.env = env;
        this.out = out;
    }

    @Override
    public Integer call() throws InterruptedException {
        Demo.Options options = new Demo.Options(inRange("--seconds", seconds, 1, 3600), inRange("--workers", workers, 1, 64),
                clients == null ? Demo.ALL_CLIENTS : Demo.parseClients(clients));
        QuietLogging.apply(verbose);
        String given = Main.url(url, env);
        if (given != null) {
            RedisTarget target = RedisTarget.parse(given);
            out.println("Redis: " + target.redacted() + (url != null ? " (--url)" : " (REDIS_URL)"));
            return new Demo(options, target, out).run();
        }
        RedisProcess started;
        try {
            started = RedisProcess.startOnFreePort();
        } catch (IOException | RuntimeException e) {
            throw new CliException(Main.EXIT_UNREACHABLE, "cannot start the embedded redis-server " + RedisProcess.VERSION
                    + ": " + RedisTarget.rootMessage(e) + "; set REDIS_URL (or --url) to a running server", e);
        }
        try (RedisProcess server = started) {
            Thread stopOnCtrlC = new Thread(server::close, "relock-demo-redis-stop");
            Runtime.getRuntime().addShutdownHook(stopOnCtrlC);
            try {
                out.println("Redis: started the embedded redis-server " + RedisProcess.VERSION + " on "
                        + server.host() + ":" + server.port() + "; it stops at the end (set REDIS_URL to use your own)");
                return new Demo(options, RedisTarget.local(server.host(), server.port()), out).run();
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(stopOnCtrlC);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running or will run: it stops the server
                }
            }
        }
    }

    private int inRange(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new ParameterException(spec.commandLine(),
                    option + " must be a whole number from " + min + " to " + max + ", was '" + value + "'");
        }
        return value;
    }
}
