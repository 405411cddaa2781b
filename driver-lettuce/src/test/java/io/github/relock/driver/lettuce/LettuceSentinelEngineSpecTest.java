package io.github.relock.driver.lettuce;

import io.github.relock.tck.RedisSentinelGroup;
import io.github.relock.tck.RedisTopology;

/** {@link LettuceEngineSpecTest} under Sentinel ({@code -Pfull}). */
class LettuceSentinelEngineSpecTest extends LettuceEngineSpecTest {

    @Override
    public RedisTopology topology() {
        return RedisSentinelGroup.shared();
    }
}
