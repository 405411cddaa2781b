package io.github.relock.spring.boot.locked;

import io.github.relock.tck.fixtures.RedisFixture;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A Lettuce client on the kit's shared embedded Redis, from which the starter makes the LockClient. */
@Configuration(proxyBeanMethods = false)
class LettuceOnSharedRedis {
    @Bean(destroyMethod = "shutdown")
    io.lettuce.core.RedisClient lettuce() {
        return io.lettuce.core.RedisClient.create(RedisFixture.shared().uri().toString());
    }
}
