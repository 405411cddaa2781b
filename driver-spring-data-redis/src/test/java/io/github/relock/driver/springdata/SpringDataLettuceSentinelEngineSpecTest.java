package io.github.relock.driver.springdata;

import io.github.relock.tck.RedisSentinelGroup;
import io.github.relock.tck.RedisTopology;

/** {@link SpringDataLettuceEngineSpecTest} under Sentinel ({@code -Pfull}). */
class SpringDataLettuceSentinelEngineSpecTest extends SpringDataLettuceEngineSpecTest {

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
    }
}
