package io.github.relock.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RespClient;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The demo, run in-process for a few seconds against a real Redis: exit code and summary. */
@ExtendWith(RedisFixture.class)
class DemoCommandTest {
    private static final Pattern COUNTER = Pattern.compile("ok {4}counter = (\\d+), (?:write )?acquisitions = (\\d+) \\(no lost update\\)");
    private static final Pattern ROW = Pattern.compile("^ {2}(relock/jedis|relock/lettuce|redisson) +(\\d+) ", Pattern.MULTILINE);

    @Test
    void demo_mixedFleetOnSharedRedis_exitsZeroAndEveryInvariantHolds(RedisServer redis) {
        Cli run = Cli.run("demo", "--seconds", "3", "--url", redis.uri().toString());

        assertEquals(Main.EXIT_OK, run.exitCode(), run::toString);
        String out = run.out();
        assertTrue(out.contains("== reentrant lock 'relock-demo:reentrant'"), run::toString);
        assertTrue(out.contains("== fair lock 'relock-demo:fair'"), run::toString);
        assertTrue(out.contains("== read-write lock 'relock-demo:read-write'"), run::toString);
        assertTrue(Pattern.compile("^\\[ *\\d+\\.\\ds\\] reentrant  relock/jedis +\\d+  relock/lettuce +\\d+  redisson +\\d+  \\| holder: ",
                Pattern.MULTILINE).matcher(out).find(), "a progress line per second\n" + run);
        assertFalse(out.contains("FAIL"), run::toString);
        assertTrue(out.contains("RESULT: ok, every invariant held"), run::toString);

        Matcher counters = COUNTER.matcher(out);
        for (String phase : List.of("reentrant", "fair", "read-write")) {
            assertTrue(counters.find(), "the " + phase + " summary compares the counter with the acquisitions\n" + run);
            assertEquals(counters.group(2), counters.group(1), run::toString);
            assertTrue(Long.parseLong(counters.group(1)) > 0, run::toString);
        }
        assertTrue(out.contains("ok    0 overlaps"), run::toString);
        assertTrue(out.contains("ok    0 failed re-entries"), run::toString);
        assertTrue(Pattern.compile("ok {4}0 fair-lock order violations \\([1-9]\\d* hand-overs checked").matcher(out).find(),
                run::toString);
        Matcher rows = ROW.matcher(out.substring(out.indexOf("-- fair lock summary"), out.indexOf("== read-write lock")));
        int clientRows = 0;
        while (rows.find()) {
            clientRows++;
            assertTrue(Long.parseLong(rows.group(2)) > 0, rows.group(1) + " acquired the fair lock\n" + run);
        }
        assertEquals(3, clientRows, "three clients in the fair lock's summary\n" + run);
        String readWrite = out.substring(out.indexOf("-- read-write lock summary"));
        assertTrue(readWrite.contains("ok    counter = "), run::toString);
        assertTrue(readWrite.contains("ok    0 reader-writer overlaps (a reader inside while a writer was)"), run::toString);
        assertTrue(readWrite.contains("ok    0 writer overlaps (two writers inside at once)"), run::toString);
        assertTrue(readWrite.contains("ok    every client read and wrote"), run::toString);
        assertTrue(Pattern.compile("note {2}at most [1-9]\\d* readers inside at once").matcher(readWrite).find(), run::toString);
        assertEquals(0L, redis.call("EXISTS", "relock-demo:counter:reentrant", "relock-demo:counter:fair",
                "relock-demo:counter:read-write", "relock-demo:reentrant", "relock-demo:fair", "relock-demo:read-write"),
                "the demo leaves no keys behind");
        assertEquals(List.of(), redis.call("KEYS", "*rwlock_timeout*"), "no reader's timeout key is left behind");
    }

    @Test
    void readWritePhase_writersAreAboutAThirdOfEachClientsWorkers_atLeastOne() {
        assertEquals(List.of(1, 1, 1, 1, 2, 2, 3, 4), java.util.stream.IntStream.of(1, 2, 3, 4, 5, 6, 9, 12)
                .map(Demo::writersOf).boxed().toList());
    }

    @Test
    void demo_withoutRedisUrl_startsEmbeddedServerAndStopsItAtTheEnd() {
        assumeTrue(RedisFixture.canControlServers(),
                "REDIS_URL is set: this machine may have no embedded redis-server binary to start");
        Cli run = Cli.run("--seconds", "1", "--workers", "1", "--clients", "lettuce,redisson");

        assertEquals(Main.EXIT_OK, run.exitCode(), run::toString);
        Matcher started = Pattern.compile("started the embedded redis-server 7\\.0\\.15 on 127\\.0\\.0\\.1:(\\d+)")
                .matcher(run.out());
        assertTrue(started.find(), run::toString);
        assertFalse(run.out().contains("relock/jedis"), "--clients leaves jedis out\n" + run);
        int port = Integer.parseInt(started.group(1));
        assertThrows(UncheckedIOException.class, () -> new RespClient("127.0.0.1", port, 1000).close(),
                "the embedded server is stopped when the demo returns");
    }

    @Test
    void demo_unreachableRedis_exitsThreeWithOneLine() {
        Cli run = Cli.run("--url", "redis://127.0.0.1:" + ClosedPort.find());

        assertEquals(Main.EXIT_UNREACHABLE, run.exitCode(), run::toString);
        assertTrue(run.err().startsWith("relock-examples: cannot reach Redis at redis://127.0.0.1:"), run::toString);
        assertEquals(1, run.err().lines().count(), run::toString);
    }

    @Test
    void demo_redisUrlFromEnvironment_isUsedAndReported() {
        Cli run = Cli.runWithEnv(java.util.Map.of("REDIS_URL", "redis://127.0.0.1:" + ClosedPort.find()), "demo");

        assertEquals(Main.EXIT_UNREACHABLE, run.exitCode(), run::toString);
        assertTrue(run.out().contains("(REDIS_URL)"), run::toString);
    }

    @Test
    void demo_badOptions_exitTwoNamingTheOption() {
        Cli seconds = Cli.run("--seconds", "0");
        assertEquals(Main.EXIT_USAGE, seconds.exitCode(), seconds::toString);
        assertTrue(seconds.err().contains("--seconds must be a whole number from 1 to 3600, was '0'"), seconds::toString);

        Cli clients = Cli.run("--clients", "jedis,hazelcast");
        assertEquals(Main.EXIT_USAGE, clients.exitCode(), clients::toString);
        assertTrue(clients.err().contains("--clients takes a list of jedis,lettuce,redisson"), clients::toString);

        Cli url = Cli.run("--url", "http://localhost:6379");
        assertEquals(Main.EXIT_USAGE, url.exitCode(), url::toString);
        assertTrue(url.err().contains("bad Redis URL 'http://localhost:6379': the scheme must be redis or rediss"),
                url::toString);

        Cli unknown = Cli.run("--sconds", "3");
        assertEquals(Main.EXIT_USAGE, unknown.exitCode(), unknown::toString);
        assertTrue(unknown.err().contains("demo: unknown option --sconds"), unknown::toString);
        assertTrue(unknown.err().contains("--help"), unknown::toString);

        Cli notANumber = Cli.run("--workers", "two");
        assertEquals(Main.EXIT_USAGE, notANumber.exitCode(), notANumber::toString);
        assertTrue(notANumber.err().contains("demo: Invalid value for option '--workers': 'two' is not an int"),
                notANumber::toString);

        Cli noValue = Cli.run("demo", "--url");
        assertEquals(Main.EXIT_USAGE, noValue.exitCode(), noValue::toString);
        assertTrue(noValue.err().contains("Missing required parameter for option '--url'"), noValue::toString);
        assertEquals("", noValue.out(), "a usage error starts nothing");
    }

    @Test
    void help_topLevel_namesBothCommandsAndTheExitCodesAndExitsZero() {
        for (String[] args : List.of(new String[] {"--help"}, new String[] {"-h"}, new String[] {"help"})) {
            Cli run = Cli.run(args);
            assertEquals(Main.EXIT_OK, run.exitCode(), run::toString);
            assertTrue(run.out().contains("Usage: java -jar examples/demo/target/relock-examples.jar [demo] [OPTIONS]"), run::toString);
            assertTrue(run.out().contains("java -jar examples/demo/target/relock-examples.jar inspect [OPTIONS] <lockName>"),
                    run::toString);
            assertTrue(Pattern.compile("^ {2}demo +Run the mixed-fleet demo", Pattern.MULTILINE).matcher(run.out()).find(),
                    run::toString);
            assertTrue(Pattern.compile("^ {2}inspect +Print what Redis holds", Pattern.MULTILINE).matcher(run.out()).find(),
                    run::toString);
            assertExitCodesListed(run, "2   usage error", "3   Redis unreachable");
            assertEquals("", run.err());
        }
    }

    @Test
    void help_demo_listsEveryDemoOptionAndExitsZero() {
        for (String[] args : List.of(new String[] {"demo", "--help"}, new String[] {"--seconds", "3", "-h"},
                new String[] {"help", "demo"})) {
            Cli run = Cli.run(args);
            assertEquals(Main.EXIT_OK, run.exitCode(), run::toString);
            for (String option : List.of("--seconds=N", "--workers=N", "--clients=LIST", "--url=URL", "--verbose", "--help")) {
                assertTrue(run.out().contains(option), option + "\n" + run);
            }
            assertTrue(run.out().contains("(default: 10)"), run::toString);
            assertExitCodesListed(run, "1   a check failed", "3   Redis unreachable");
            assertEquals("", run.err());
        }
    }

    @Test
    void help_inspect_listsTheLockNameAndItsOptionsAndExitsZero() {
        for (String[] args : List.of(new String[] {"inspect", "--help"}, new String[] {"help", "inspect"})) {
            Cli run = Cli.run(args);
            assertEquals(Main.EXIT_OK, run.exitCode(), run::toString);
            // picocli wraps the usage line at 80 columns, wherever the jar's path puts the break
            assertTrue(run.out().replaceAll("\\s+", " ").contains("inspect [-h] [--json] [--url=URL] <lockName>"),
                    run::toString);
            assertFalse(run.out().contains("--seconds"), "demo's options are not inspect's\n" + run);
            assertExitCodesListed(run, "1   nothing of that name", "3   Redis unreachable");
            assertEquals("", run.err());
        }
    }

    @Test
    void unknownCommand_exitsTwoNamingTheCommands() {
        Cli unknown = Cli.run("frobnicate");
        assertEquals(Main.EXIT_USAGE, unknown.exitCode(), unknown::toString);
        assertNotNull(unknown.err());
        assertTrue(unknown.err().contains("unknown command 'frobnicate' (commands: demo, inspect)"), unknown::toString);
        assertEquals("", unknown.out());
    }

    private static void assertExitCodesListed(Cli run, String... lines) {
        String out = run.out().replace(System.lineSeparator(), "\n");
        assertTrue(out.contains("Exit codes:\n  0   "), run::toString);
        for (String line : lines) {
            assertTrue(out.contains("\n  " + line), line + "\n" + run);
        }
    }
}
