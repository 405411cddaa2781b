package io.github.relock.examples;

import io.github.relock.api.LockClient;
import io.github.relock.api.LockInspection;
import io.github.relock.core.RedisLocks;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import redis.clients.jedis.RedisClient;

/**
 * {@code inspect <lockName>}: what Redis holds for one lock, semaphore or count-down latch, as text
 * or one JSON object: {@code LockClient.inspect} rendered by {@link LockReport}.
 *
 * <p>Thread-safety: one instance per command line run; not shared.
 */
@Command(name = "inspect", sortOptions = false, descriptionHeading = "%n", optionListHeading = "%nOptions:%n",
        header = "Print what Redis holds for a lock, semaphore or latch, whichever library wrote it.",
        description = {
            "Type (reentrant, fair, read-write), holders (clientId:threadId, hold count, read/write; negative"
                    + " thread ids are relock leases), TTL, the fair queue in order with each waiter's deadline,"
                    + " and each read hold's timeout key. A fair lock with no waiters looks exactly like a"
                    + " reentrant lock in Redis, and is reported as one. A permit-expirable semaphore shows its"
                    + " available permits and each held permit's id and deadline; a semaphore and a count-down"
                    + " latch keep one string count alike, shown as such. A holder whose relock client registered"
                    + " owner info (LockOptions.ownerInfo) is named by application, version and host."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:a lock, semaphore or latch was found",
            "1:nothing of that name, an empty name, or a key that is none of them",
            "2:usage error: unknown option, no lock name, malformed URL",
            "3:Redis unreachable or refused the credentials"})
final class InspectCommand implements Callable<Integer> {
    /** The usage error when the lock name is missing. */
    static final String WHICH_LOCK = "which lock? (inspect <lockName>)";
    /** The answer for an empty lock name, which needs no Redis. */
    static final String EMPTY_NAME = "the lock name is empty: pass the name given to getLock(...)";

    private final Map<String, String> env;
    private final PrintStream out;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;

    @Parameters(paramLabel = "<lockName>", arity = "1",
            description = "The name given to getLock(...); put -- before a name that starts with '-'.")
    String name;

    @Option(names = "--json", description = "Print one JSON object, on one line, instead of text.")
    boolean json;

    @Option(names = "--url", paramLabel = "URL",
            description = "The Redis to read, " + RedisTarget.FORMAT + " (default: $REDIS_URL, else redis://localhost:6379).")
    String url;

    InspectCommand(Map<String, String> env, PrintStream out) {
        this.env = env;
        this.out = out;
    }

    @Override
    public Integer call() {
        String given = Main.url(url, env);
        RedisTarget target = RedisTarget.parse(given == null ? "redis://localhost:6379" : given);
        if (name.isEmpty()) { // answered without asking Redis
            out.println(json ? emptyNameJson(target.redacted()) : EMPTY_NAME);
            return Main.EXIT_FAILED;
        }
        LockInspection state;
        try (RedisClient redis = target.jedis()) {
            target.requireReachable(redis);
            try (LockClient locks = RedisLocks.create(redis)) {
                state = locks.inspect(name);
            } catch (IllegalArgumentException bad) { // a blank name, or one no Redis key can hold
                out.println(bad.getMessage());
                return Main.EXIT_FAILED;
            }
        }
        long now = System.currentTimeMillis();
        out.println(json ? LockReport.json(state, now, target.redacted()) : LockReport.text(state, now));
        return state.found() ? Main.EXIT_OK : Main.EXIT_FAILED;
    }

    private static String emptyNameJson(String redis) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "");
        m.put("found", false);
        m.put("type", "none");
        m.put("redis", redis);
        m.put("reason", EMPTY_NAME);
        return Json.write(m);
    }
}
