package io.github.relock.driver.lettuce;

import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisTopology;

/** {@link LettuceEngineSpecTest} under Sentinel ({@code -Pfull}). */
class LettuceSentinelEngineSpecTest extends LettuceEngineSpecTest {

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
    }
}
