package io.github.relock.examples;

import io.github.relock.embeddedredis.RedisProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import redis.clients.jedis.RedisClient;

/**
 * The examples' command line: {@code demo} (the default) and {@code inspect}.
 *
 * <pre>
 * mvn -B -q -pl examples -am package -DskipTests
 * java -jar examples/target/relock-examples.jar                      # the demo
 * java -jar examples/target/relock-examples.jar inspect orders:42    # what Redis holds for a lock
 * </pre>
 *
 * <p>Thread-safety: {@link #run} may be called from several threads (tests do); each call is
 * independent.
 */
public final class Main {
    /** The demo's invariants held; inspect found a lock. */
    static final int EXIT_OK = 0;
    /** The demo broke an invariant (or failed); inspect found no lock of that name. */
    static final int EXIT_FAILED = 1;
    /** Bad command line: unknown command or option, bad value, bad URL. */
    static final int EXIT_USAGE = 2;
    /** Redis did not answer (not running, wrong host or port), refused the credentials, or (demo
     * without a URL) the embedded server could not start. */
    static final int EXIT_UNREACHABLE = 3;

    static final String JAR = "java -jar examples/target/relock-examples.jar";
    static final String USAGE = """
            relock examples: relock and Redisson sharing locks, and what a lock looks like in Redis.

            usage: %1$s [demo] [options]
                   %1$s inspect <lockName> [--json] [--url URL]

            demo (the default): relock over Jedis, relock over Lettuce and Redisson contend for one
            reentrant lock (then one fair lock), each worker doing GET counter, think, SET counter+1
            inside it. Prints a line per second, then per lock: acquisitions and wait p50/p99 per
            client, the counter against the acquisitions (no lost update), overlaps, re-entries, and
            for the fair lock the hand-over order.
              --seconds N     how long to run, split between the locks (default 10)
              --workers N     worker threads per client (default 2)
              --clients LIST  which of jedis,lettuce,redisson take part (default: all three)
              --url URL       the Redis to use (default: $REDIS_URL; unset: start the embedded
                              redis-server %2$s on a free loopback port and stop it at the end)
              --verbose       also show relock's INFO log lines

            inspect <lockName>: prints what Redis holds for that lock, whichever library took it:
            type (reentrant, fair, read-write), holders (clientId:threadId, hold count, read/write),
            TTL, the fair queue in order with each waiter's deadline, read holds' timeout keys.
              --json          one JSON object instead of text
              --url URL       the Redis to read (default: $REDIS_URL, else redis://localhost:6379)

            URL: redis://[user:password@]host[:port][/db] or rediss://...

            exit codes: 0 ok; 1 an invariant failed (demo) or no such lock (inspect);
                        2 usage error; 3 Redis unreachable, refused the credentials, or the
                        embedded server could not start
            """.formatted(JAR, RedisProcess.VERSION);

    private Main() {
    }

    /**
     * Runs the command line and exits with its code.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), System.out, System.err));
    }

    /**
     * Runs the command line without exiting.
     *
     * @param args the arguments
     * @param env the environment ({@code REDIS_URL})
     * @param out where results go
     * @param err where errors go
     * @return the exit code
     */
    static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        List<String> list = Arrays.asList(args);
        boolean explicit = !list.isEmpty() && !list.get(0).startsWith("-");
        String command = explicit ? list.get(0) : "demo";
        List<String> rest = explicit ? list.subList(1, list.size()) : list;
        try {
            return switch (command) {
                case "demo" -> demo(rest, env, out);
                case "inspect" -> inspect(rest, env, out);
                case "help" -> {
                    out.print(USAGE);
                    yield EXIT_OK;
                }
                default -> throw CliException.usage("unknown command '" + command + "' (commands: demo, inspect)");
            };
        } catch (CliException e) {
            err.println("relock-examples: " + e.getMessage());
            if (e.exitCode() == EXIT_USAGE) {
                err.println("run '" + JAR + " --help' for usage");
            }
            return e.exitCode();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("relock-examples: interrupted");
            return EXIT_FAILED;
        } catch (RuntimeException e) {
            err.println("relock-examples: " + command + " failed: " + RedisTarget.rootMessage(e));
            return EXIT_FAILED;
        }
    }

    private static int demo(List<String> raw, Map<String, String> env, PrintStream out) throws InterruptedException {
        Args a = Args.parse("demo", raw, Set.of("--seconds", "--workers", "--clients", "--url"), Set.of("--verbose"));
        if (a.flag("--help")) {
            out.print(USAGE);
            return EXIT_OK;
        }
        if (!a.positionals().isEmpty()) {
            throw CliException.usage("demo: unexpected argument '" + a.positionals().get(0) + "'");
        }
        Demo.Options options = new Demo.Options(a.intValue("demo", "--seconds", 10, 1, 3600),
                a.intValue("demo", "--workers", 2, 1, 64),
                a.value("--clients") == null ? Demo.ALL_CLIENTS : Demo.parseClients(a.value("--clients")));
        QuietLogging.apply(a.flag("--verbose"));
        String url = url(a, env);
        if (url != null) {
            RedisTarget target = RedisTarget.parse(url);
            out.println("Redis: " + target.redacted() + (a.value("--url") != null ? " (--url)" : " (REDIS_URL)"));
            return new Demo(options, target, out).run();
        }
        RedisProcess started;
        try {
            started = RedisProcess.startOnFreePort();
        } catch (IOException | RuntimeException e) {
            throw new CliException(EXIT_UNREACHABLE, "cannot start the embedded redis-server " + RedisProcess.VERSION + ": "
                    + RedisTarget.rootMessage(e) + "; set REDIS_URL (or --url) to a running server", e);
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

    private static int inspect(List<String> raw, Map<String, String> env, PrintStream out) {
        Args a = Args.parse("inspect", raw, Set.of("--url"), Set.of("--json"));
        if (a.flag("--help")) {
            out.print(USAGE);
            return EXIT_OK;
        }
        if (a.positionals().size() != 1) {
            throw CliException.usage(a.positionals().isEmpty() ? "inspect: which lock? (inspect <lockName>)"
                    : "inspect: one lock name at a time, got " + a.positionals().size());
        }
        String name = a.positionals().get(0);
        String url = url(a, env);
        RedisTarget target = RedisTarget.parse(url == null ? "redis://localhost:6379" : url);
        long now = System.currentTimeMillis();
        LockState state;
        if (name.isEmpty()) {
            state = Inspector.emptyName(); // answered without asking Redis
        } else {
            try (RedisClient redis = target.jedis()) {
                target.requireReachable(redis);
                state = new Inspector(redis).inspect(name);
            }
        }
        out.println(a.flag("--json") ? LockReport.json(state, now, target.redacted()) : LockReport.text(state, now));
        return state.found() ? EXIT_OK : EXIT_FAILED;
    }

    private static String url(Args a, Map<String, String> env) {
        String url = a.value("--url");
        if (url == null) {
            url = env.get("REDIS_URL");
        }
        return url == null || url.isBlank() ? null : url;
    }
}
