package io.github.relock.driver.springdata;

import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisTopology.Kind;

/**
 * {@link SpringDataJedisTckTest} over a {@code JedisConnectionFactory} under the kit's Sentinel
 * group: the same kit class with another topology, split off only so that the test forks run the
 * topologies side by side.
 */
@Topologies(Kind.SENTINEL)
class SpringDataJedisTckSentinelTest extends SpringDataJedisTckTest {
}
