package io.github.relock.driver.jedis;

import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisTopology.Kind;

/**
 * {@link JedisTckTest} under Sentinel with a {@code RedisSentinelClient}: the same kit class with
 * another topology group, split off only so that the test forks run the groups side by side (with
 * one server and Sentinel in one class, that class alone outlasted the other two forks' classes).
 */
@Topologies(Kind.SENTINEL)
class JedisTckSentinelTest extends JedisTckTest {
}
