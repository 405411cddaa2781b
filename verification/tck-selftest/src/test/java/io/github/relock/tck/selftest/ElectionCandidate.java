package io.github.relock.tck.selftest;

import io.github.relock.api.LeaderElection;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.core.RedisLocks;
import io.github.relock.driver.jedis.JedisDriverProvider;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.RedisClient;

/**
 * One candidate of {@link LeaderElectionKillLoopTest}, in a JVM of its own that the test kills with
 * {@code SIGKILL}: it campaigns on {@link #ELECTION} over the Jedis driver and, while it leads a
 * tenure, records the grant and writes the tenure's epoch to a fenced register every few
 * milliseconds. The register is a Lua compare-and-set that refuses an epoch lower than the last it
 * accepted (counting the refusal) and logs each accepted write with its epoch, the writer's JVM id
 * and the server's clock, so the parent audits the run from Redis after the writers are dead.
 *
 * <p>Arguments: {@code <redis uri> <jvm id> <watchdog ms>}. Prints {@code JOINED} once campaigning.
 *
 * <p>Thread-safety: a program; its state is confined to its threads.
 */
final class ElectionCandidate {
    /** The election's (and lock's) name. */
    static final String ELECTION = "kills:leader";
    /** Accepted writes, oldest first: {@code "<epoch> <jvm> <server sec> <server usec>"}. */
    static final String LOG = "kills:{register}:log";
    /** Grants, in the order the tenures began: {@code "<epoch> <jvm> <server sec> <server usec>"}. */
    static final String GRANTS = "kills:{register}:grants";
    /** The count of writes the register refused (a lower epoch than it had accepted). */
    static final String REFUSED = "kills:{register}:refused";
    static final String LAST = "kills:{register}:last";

    private static final String WRITE = """
            local last = redis.call('GET', KEYS[1])
            local epoch = tonumber(ARGV[1])
            if last and epoch < tonumber(last) then
              redis.call('INCR', KEYS[3])
              return 0
            end
            redis.call('SET', KEYS[1], ARGV[1])
            local t = redis.call('TIME')
            redis.call('RPUSH', KEYS[2], ARGV[1] .. ' ' .. ARGV[2] .. ' ' .. t[1] .. ' ' .. t[2])
            return 1
            """;
    private static final String GRANTED = """
            local t = redis.call('TIME')
            return redis.call('RPUSH', KEYS[1], ARGV[1] .. ' ' .. ARGV[2] .. ' ' .. t[1] .. ' ' .. t[2])
            """;

    private ElectionCandidate() {
    }

    /**
     * @param args {@code <redis uri> <jvm id> <watchdog ms>}
     * @throws InterruptedException never: the process waits to be killed
     */
    public static void main(String[] args) throws InterruptedException {
        String jvm = args[1];
        RedisClient redis = RedisClient.create(URI.create(args[0]));
        LockClient client = RedisLocks.create(new JedisDriverProvider(), redis,
                LockOptions.builder().lockWatchdogTimeout(Duration.ofMillis(Long.parseLong(args[2]))).build());
        LeaderElection election = client.getLeaderElection(ELECTION);
        election.onGranted(g -> { // the listener runs on the client's timer: the writes go on a thread of their own
            Thread writer = new Thread(() -> {
                String epoch = Long.toString(g.epoch());
                redis.eval(GRANTED, List.of(GRANTS), List.of(epoch, jvm));
                while (election.epoch().equals(OptionalLong.of(g.epoch()))) {
                    redis.eval(WRITE, List.of(LAST, LOG, REFUSED), List.of(epoch, jvm));
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                }
            }, "register-writer-" + g.epoch());
            writer.setDaemon(true);
            writer.start();
        });
        election.onRevoked(r -> System.out.println("REVOKED " + r));
        election.join();
        System.out.println("JOINED");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
