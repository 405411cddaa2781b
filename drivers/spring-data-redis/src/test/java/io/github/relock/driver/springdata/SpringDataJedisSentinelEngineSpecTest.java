package io.github.relock.driver.springdata;

import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisTopology;

/** {@link SpringDataJedisEngineSpecTest} under Sentinel ({@code -Pfull}). */
class SpringDataJedisSentinelEngineSpecTest extends SpringDataJedisEngineSpecTest {

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
    }
}
