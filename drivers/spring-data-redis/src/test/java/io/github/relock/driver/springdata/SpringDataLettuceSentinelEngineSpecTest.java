package io.github.relock.driver.springdata;

import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisTopology;

/** {@link SpringDataLettuceEngineSpecTest} under Sentinel ({@code -Pfull}). */
class SpringDataLettuceSentinelEngineSpecTest extends SpringDataLettuceEngineSpecTest {

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
    }
}
