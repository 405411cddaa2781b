package io.github.relock.driver.jedis;

import io.github.relock.tck.RuleSlice;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisTopology.Kind;

/**
 * {@link JedisTckTest} under Sentinel with a {@code RedisSentinelClient}: the same kit class with
 * another topology group, split off only so that the test forks run the groups side by side (with
 * one server and Sentinel in one class, that class alone outlasted the other two forks' classes).
 * Under Sentinel it runs the chapters where the topology changes what the driver does
 * (conformance, waiting, exclusion, liveness, loss, timing and driver faults, queued calls, replica
 * acknowledgement); the chapters that check the engine or the client's own bookkeeping run on one
 * server and on the cluster ({@link RuleSlice}; {@code -Pfull} runs all).
 */
@Topologies(Kind.SENTINEL)
@RuleSlice(except = {"cancellation", "lock-listeners", "cohort", "leader-election", "faults", "lease-watchdog",
        "local-handoff", "bad-input", "synchronizers", "inspection", "observability", "fair-lock", "lock-family",
        "read-write-lock", "multi-lock"},
        elsewhere = "JedisTckTest and JedisTckClusterTest run it;"
                + " under Sentinel the default build runs the chapters where the topology matters (-Pfull: all)")
class JedisTckSentinelTest extends JedisTckTest {
}
