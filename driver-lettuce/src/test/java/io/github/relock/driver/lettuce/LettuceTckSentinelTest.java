package io.github.relock.driver.lettuce;

import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisTopology.Kind;

/**
 * {@link LettuceTckTest} under the kit's Sentinel group with a Sentinel-aware {@code RedisClient}:
 * the same kit class with another topology, split off only so that the test forks run the
 * topologies side by side.
 */
@Topologies(Kind.SENTINEL)
class LettuceTckSentinelTest extends LettuceTckTest {
}
