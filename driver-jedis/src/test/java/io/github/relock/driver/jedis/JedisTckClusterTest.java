package io.github.relock.driver.jedis;

import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisTopology.Kind;

/**
 * {@link JedisTckTest} on the kit's 3-master, 3-replica Redis Cluster with a
 * {@code RedisClusterClient}: the same kit class with another topology group, split off only so
 * that the test forks run the groups side by side.
 */
@Topologies(Kind.CLUSTER)
class JedisTckClusterTest extends JedisTckTest {
}
