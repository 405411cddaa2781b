package io.github.relock.driver.springdata;

import io.github.relock.tck.RuleSlice;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisTopology.Kind;

/**
 * {@link SpringDataLettuceTckTest} over a {@code LettuceConnectionFactory} under the kit's Sentinel
 * group: the same kit class with another topology, split off only so that the test forks run the
 * topologies side by side. Under Sentinel it runs the chapters where the topology changes what the
 * driver does (conformance, waiting, exclusion, liveness, loss, timing and driver faults, queued
 * calls, replica acknowledgement); the chapters that check the engine or the client's own
 * bookkeeping run on one server and on the cluster ({@link RuleSlice}; {@code -Pfull} runs all).
 */
@Topologies(Kind.SENTINEL)
@RuleSlice(except = {"cancellation", "lock-listeners", "cohort", "leader-election", "faults", "lease-watchdog",
        "local-handoff", "bad-input", "synchronizers", "inspection", "observability", "fair-lock", "lock-family",
        "read-write-lock", "multi-lock"},
        elsewhere = "SpringDataLettuceTckTest and SpringDataLettuceClusterTckTest run it;"
                + " under Sentinel the default build runs the chapters where the topology matters (-Pfull: all)")
class SpringDataLettuceTckSentinelTest extends SpringDataLettuceTckTest {
}
