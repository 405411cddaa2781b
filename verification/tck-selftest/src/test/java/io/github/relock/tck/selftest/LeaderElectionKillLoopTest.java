package io.github.relock.tck.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Leader election under the crash of the leader's process (issue 35): three candidates, each an
 * {@link ElectionCandidate} in a child JVM on one embedded Redis, campaign on one name; the test
 * kills the leader's JVM with {@code SIGKILL} (no {@code leave()}, no close: its key is left to
 * expire), starts a replacement candidate, and does it again, {@value #DEFAULT_KILLS} times by
 * default. It then audits what Redis recorded: the fenced register never accepted an older epoch
 * after a newer one and saw each epoch from one JVM, in one unbroken run; grants' epochs strictly
 * increase; no candidate was granted before the killed leader was dead (tenures never overlap);
 * and each handover (the kill to the next grant, both on the server's clock) took at most the
 * watchdog timeout plus a margin. It prints the handover times and the register's refusals (the
 * fence turning away a deposed leader's late writes) to its output file in
 * {@code target/surefire-reports}.
 *
 * <p>A loop of JVM starts, so not in the default build: {@code -Pelection-kills} in this module
 * runs it ({@code docs/guide/building.md}, "Longer runs"); {@code -Drelock.electionKills.kills=N}
 * sets another count, {@code -Drelock.electionKills.watchdogMs} and {@code .marginMs} the bound.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("election-kills")
class LeaderElectionKillLoopTest {
    static final int DEFAULT_KILLS = 20;
    private static final int CANDIDATES = 3;
    private static final Duration START = Duration.ofSeconds(60);

    private final int kills = Integer.getInteger("relock.electionKills.kills", DEFAULT_KILLS);
    private final Duration watchdog = Duration.ofMillis(Long.getLong("relock.electionKills.watchdogMs", 1500));
    private final Duration margin = Duration.ofMillis(Long.getLong("relock.electionKills.marginMs", 1500));
    private final Map<String, Child> alive = new LinkedHashMap<>();
    private int started;

    /** One record of the register's log or the grants list. */
    private record Entry(long epoch, String jvm, long micros) {
        static Entry parse(Object raw) {
            String[] f = String.valueOf(raw).split(" ");
            return new Entry(Long.parseLong(f[0]), f[1], Long.parseLong(f[2]) * 1_000_000 + Long.parseLong(f[3]));
        }
    }

    /** A killed tenure: its epoch, its JVM, and when the kill was sent (server clock). */
    private record Kill(long epoch, String jvm, long micros) {
    }

    @Test
    void leadersKilled_neverTwoTenuresOverlap_andEachHandoverWithinTheWatchdogTimeout() throws Exception {
        RedisServer redis = RedisServer.startEmbedded();
        List<Kill> killed = new ArrayList<>();
        List<Long> handoverMs = new ArrayList<>();
        List<Entry> log;
        List<Entry> grants;
        long refused;
        try {
            for (int i = 0; i < CANDIDATES; i++) {
                start(redis);
            }
            long lastEpoch = 0;
            for (int k = 0; k < kills; k++) {
                awaitGrant(redis, lastEpoch, "a grant after epoch " + lastEpoch);
                awaitEveryCandidateJoined();
                List<Entry> granted = grants(redis);
                Entry leader = granted.get(granted.size() - 1); // the newest tenure leads
                Await.until(START, () -> logged(redis).stream().anyMatch(e -> e.epoch() == leader.epoch()),
                        () -> "the leader " + leader + " never wrote; candidates' output:\n" + outputs());
                long killAt = serverMicros(redis);
                alive.remove(leader.jvm()).kill();
                killed.add(new Kill(leader.epoch(), leader.jvm(), killAt));
                Entry next = awaitGrant(redis, leader.epoch(), "grant after the kill of " + leader);
                handoverMs.add(TimeUnit.MICROSECONDS.toMillis(next.micros() - killAt));
                lastEpoch = leader.epoch();
                start(redis);
            }
        } finally {
            alive.values().forEach(Child::kill);
            log = logged(redis);
            grants = grants(redis);
            Object r = redis.call("GET", ElectionCandidate.REFUSED);
            refused = r == null ? 0 : Long.parseLong(String.valueOf(r));
            redis.stop();
        }
        report(handoverMs, grants, log, refused);

        Map<Long, String> writerOf = new HashMap<>();
        for (int i = 0; i < log.size(); i++) {
            Entry e = log.get(i);
            String other = writerOf.putIfAbsent(e.epoch(), e.jvm());
            assertTrue(other == null || other.equals(e.jvm()), "epoch " + e.epoch() + " written by " + other
                    + " and " + e.jvm());
            long before = i == 0 ? 0 : log.get(i - 1).epoch();
            assertTrue(e.epoch() >= before, "the register accepted epoch " + e.epoch() + " after " + before
                    + " (write " + i + ")");
        }
        for (int i = 1; i < grants.size(); i++) {
            assertTrue(grants.get(i).epoch() > grants.get(i - 1).epoch(), "grants' epochs do not increase: " + grants);
        }
        for (Kill k : killed) { // the killed tenure ended before the next began
            Entry next = grants.stream().filter(g -> g.epoch() > k.epoch()).findFirst().orElseThrow();
            assertTrue(next.micros() >= k.micros(), "epoch " + next.epoch() + " was granted "
                    + (k.micros() - next.micros()) + " µs before its predecessor " + k + " was killed");
            long lastWrite = log.stream().filter(e -> e.epoch() == k.epoch()).mapToLong(Entry::micros).max()
                    .orElseThrow();
            assertTrue(lastWrite < next.micros(), "tenures " + k.epoch() + " and " + next.epoch() + " overlap: the"
                    + " killed leader's last write came " + (lastWrite - next.micros()) + " µs after the next grant");
        }
        long bound = watchdog.plus(margin).toMillis();
        assertTrue(handoverMs.stream().allMatch(ms -> ms <= bound), "a handover took more than the watchdog timeout "
                + watchdog + " plus " + margin + ": " + handoverMs);
        assertEquals(kills, handoverMs.size());
    }

    private void report(List<Long> handoverMs, List<Entry> grants, List<Entry> log, long refused) {
        List<Long> sorted = handoverMs.stream().sorted().toList();
        String times = sorted.isEmpty() ? "none" : "min " + sorted.get(0) + " ms, median "
                + sorted.get(sorted.size() / 2) + " ms, max " + sorted.get(sorted.size() - 1) + " ms";
        System.out.println("election kills: " + handoverMs.size() + " kills of " + started + " candidate JVMs,"
                + " watchdog " + watchdog.toMillis() + " ms; handover " + times + "; " + grants.size() + " grants, "
                + log.size() + " register writes accepted, " + refused + " refused (the fence); handovers in order "
                + handoverMs);
    }

    private Entry awaitGrant(RedisServer redis, long afterEpoch, String what) {
        Await.until(START, () -> grants(redis).stream().anyMatch(g -> g.epoch() > afterEpoch),
                () -> "no " + what + "; candidates' output:\n" + outputs());
        return grants(redis).stream().filter(g -> g.epoch() > afterEpoch).findFirst().orElseThrow();
    }

    private void awaitEveryCandidateJoined() {
        for (Child c : alive.values()) {
            Await.until(START, () -> c.printed("JOINED") || !c.process.isAlive(), () -> c.jvm + " did not join:\n"
                    + c.output());
            assertTrue(c.process.isAlive(), c.jvm + " ended:\n" + c.output());
        }
    }

    private String outputs() {
        StringBuilder b = new StringBuilder();
        alive.values().forEach(c -> b.append("--- ").append(c.jvm).append('\n').append(c.output()));
        return b.toString();
    }

    private static List<Entry> logged(RedisServer redis) {
        return ((List<?>) redis.call("LRANGE", ElectionCandidate.LOG, "0", "-1")).stream().map(Entry::parse).toList();
    }

    private static List<Entry> grants(RedisServer redis) {
        return ((List<?>) redis.call("LRANGE", ElectionCandidate.GRANTS, "0", "-1")).stream().map(Entry::parse).toList();
    }

    private static long serverMicros(RedisServer redis) {
        List<?> t = (List<?>) redis.call("TIME");
        return Long.parseLong(String.valueOf(t.get(0))) * 1_000_000 + Long.parseLong(String.valueOf(t.get(1)));
    }

    private void start(RedisServer redis) {
        String jvm = "jvm-" + ++started;
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = List.of(java, "-cp", System.getProperty("java.class.path"),
                ElectionCandidate.class.getName(), redis.uri().toString(), jvm, Long.toString(watchdog.toMillis()));
        try {
            Path log = Files.createTempFile("relock-" + jvm, ".log");
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            alive.put(jvm, new Child(jvm, p, log));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a candidate JVM: " + command, e);
        }
    }

    /** A candidate's JVM and its output file. */
    private record Child(String jvm, Process process, Path log) {
        boolean printed(String line) {
            return output().lines().anyMatch(line::equals);
        }

        String output() {
            try {
                return Files.readString(log);
            } catch (IOException e) {
                return "(cannot read " + log + ": " + e + ")";
            }
        }

        /** {@code SIGKILL}, and waits until the process is gone. */
        void kill() {
            process.destroyForcibly();
            try {
                assertTrue(process.waitFor(30, TimeUnit.SECONDS), jvm + " survived SIGKILL for 30 s");
                Files.deleteIfExists(log);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (IOException ignored) {
                // a temp file
            }
        }
    }
}
