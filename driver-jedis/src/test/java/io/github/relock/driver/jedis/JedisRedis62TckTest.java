package io.github.relock.driver.jedis;

import io.github.relock.tck.RuleSlice;
import io.github.relock.tck.Topologies;
import io.github.relock.tck.fixtures.RedisTopology.Kind;

/**
 * {@link JedisTckTest} on Redis 6.2 (the {@code redis-server} of
 * {@code com.github.codemonstur:embedded-redis}), one server and a 3-master cluster: the default
 * build's run on a server other than 7.0.15. Two slices of the kit run here: the rules about what
 * a server lacks (tag {@code servers}: no script flags, no sharded pub/sub, a refused
 * subscription), where they fall back, and the driver contract's conformance chapter (tag
 * {@code driver-conformance}: scripts, error replies, pub/sub), where Redis 6.2 answers differently
 * (it wraps a command's error in a script's as {@code ERR Error running script ...}).
 * {@code -Pservers} runs the whole kit of every driver on 6.2.
 */
@Topologies(value = {Kind.SINGLE, Kind.CLUSTER}, server = "6.2")
@RuleSlice(value = {"servers", "driver-conformance"}, elsewhere = "JedisTckTest and JedisTckClusterTest run every rule on Redis 7.0.15;"
        + " -Pservers runs them on 6.2")
class JedisRedis62TckTest extends JedisTckTest {
}
