package io.github.relock.benchmarks;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.core.RedisLocks;
import io.github.relock.driver.jedis.JedisDriverProvider;
import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisServer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.RedisClient;

/**
 * The cost of replica acknowledgement by default ({@code LockOptions.replicaSync(Duration)}): one
 * thread loops {@code lock(); unlock();} on relock-jedis, with the default and with
 * {@code noReplicaSync()}, on a server without replicas and on a Sentinel-managed primary with two
 * replicas (all embedded, on loopback). The four configurations are measured in turns,
 * {@code rounds} times, so a drift of the machine hits all alike; the table shows each one's median
 * cycles per second, the default ÷ off ratio per server, and the {@code WAIT} calls each server
 * counted (none on the server without replicas). Not part of {@link BenchmarkReport}: a
 * standalone probe.
 *
 * <pre>{@code
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp "benchmarks/target/benchmarks.jar:benchmarks/target/lib/*" io.github.relock.benchmarks.ReplicaSyncProbe 3 4
 * }</pre>
 *
 * <p>Thread-safety: a program; not for concurrent use.
 */
public final class ReplicaSyncProbe {
    private static final Pattern WAIT_CALLS = Pattern.compile("cmdstat_wait:calls=(\\d+)");

    private ReplicaSyncProbe() {
    }

    /**
     * @param args {@code seconds rounds} (defaults 3 4): seconds per measurement, measurements per
     *     configuration
     * @throws Exception on any failure
     */
    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        try (RedisServer alone = RedisServer.startEmbedded(); RedisSentinelGroup group = RedisSentinelGroup.start()) {
            RedisServer primary = group.primary();
            Map<String, LockClient> configs = new LinkedHashMap<>();
            List<AutoCloseable> natives = new ArrayList<>();
            for (RedisServer s : List.of(alone, primary)) {
                String where = s == alone ? "no replicas" : "2 replicas";
                for (boolean off : new boolean[] {false, true}) {
                    RedisClient jedis = RedisClient.builder().hostAndPort(s.host(), s.port())
                            .poolConfig(RelockSource.jedisPool()).build();
                    natives.add(jedis);
                    LockOptions options = off ? LockOptions.builder().noReplicaSync().build() : LockOptions.defaults();
                    configs.put(where + ", replicaSync " + (off ? "off" : "default"),
                            RedisLocks.create(new JedisDriverProvider(), jedis, options));
                }
            }
            long waitsBefore = waits(alone);
            Map<String, List<Long>> rates = new LinkedHashMap<>();
            configs.keySet().forEach(k -> rates.put(k, new ArrayList<>()));
            int n = 0;
            for (int r = 0; r < rounds; r++) {
                for (Map.Entry<String, LockClient> c : configs.entrySet()) {
                    DistributedLock lock = c.getValue().getLock("probe:replica-sync:" + n++);
                    long cycles = 0;
                    long end = System.nanoTime() + seconds * 1_000_000_000L;
                    while (System.nanoTime() < end) {
                        lock.lock();
                        lock.unlock();
                        cycles++;
                    }
                    rates.get(c.getKey()).add(cycles / seconds);
                }
            }
            System.out.println("| Configuration (relock-jedis, 1 thread, lock+unlock) | cycles/s (median of " + rounds
                    + " × " + seconds + " s, interleaved) | default ÷ off (median of the rounds' ratios [each round]) |");
            System.out.println("|---|---|---|");
            List<String> keys = new ArrayList<>(rates.keySet());
            for (int i = 0; i < keys.size(); i++) {
                long median = median(rates.get(keys.get(i)));
                String ratio = i % 2 == 0 ? pairRatios(rates.get(keys.get(i)), rates.get(keys.get(i + 1))) : "";
                System.out.println("| " + keys.get(i) + " | " + String.format("%,d", median) + " " + rates.get(keys.get(i))
                        + " | " + ratio + " |");
            }
            System.out.println();
            System.out.println("WAIT calls counted by the server without replicas during the run: "
                    + (waits(alone) - waitsBefore) + "; by the primary with two replicas: " + waits(primary));
            for (LockClient c : configs.values()) {
                c.close();
            }
            for (AutoCloseable c : natives) {
                c.close();
            }
        }
    }

    private static long waits(RedisServer s) {
        Matcher m = WAIT_CALLS.matcher((String) s.call("INFO", "commandstats"));
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /** @return the median of the per-round ratios {@code a[r] / b[r]}, then each round's */
    private static String pairRatios(List<Long> a, List<Long> b) {
        List<Double> ratios = new ArrayList<>();
        for (int r = 0; r < a.size(); r++) {
            ratios.add((double) a.get(r) / b.get(r));
        }
        List<Double> sorted = new ArrayList<>(ratios);
        sorted.sort(null);
        StringBuilder each = new StringBuilder();
        for (double x : ratios) {
            each.append(each.length() == 0 ? "" : ", ").append(String.format("%.2f", x));
        }
        return String.format("%.2f× [%s]", sorted.get(sorted.size() / 2), each);
    }

    private static long median(List<Long> xs) {
        List<Long> sorted = new ArrayList<>(xs);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }
}
