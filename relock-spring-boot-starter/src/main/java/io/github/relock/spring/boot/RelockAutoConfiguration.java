package io.github.relock.spring.boot;

import io.github.relock.api.LockClient;
import io.github.relock.api.LockEventListener;
import io.github.relock.api.LockOptions;
import io.github.relock.core.RedisLocks;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Auto-configures one {@link LockClient} bean (closed when the context closes) and the
 * {@link LockOptions} it uses, from the {@code relock.*} properties ({@link RelockProperties}).
 *
 * <p>Where the client comes from, first match wins:
 * <ol>
 * <li>the application's Spring Data Redis {@code RedisConnectionFactory} (Lettuce- or Jedis-backed,
 *     standalone, cluster or Sentinel, as Boot configured it), through relock's
 *     {@code driver-spring-data-redis}; without that driver, a Lettuce-backed factory's own
 *     Lettuce client, through {@code driver-lettuce}. This client is closed just before the
 *     factory stops ({@link RelockClientLifecycle}), not after;</li>
 * <li>else a Lettuce {@code RedisClient} or {@code RedisClusterClient} bean, through
 *     {@code driver-lettuce};</li>
 * <li>else a Jedis {@code UnifiedJedis} bean ({@code RedisClient}, {@code RedisClusterClient},
 *     {@code JedisCluster}, ...), through {@code driver-jedis}.</li>
 * </ol>
 * The client's {@link LockEventListener} is the application's listener bean, if it has one (several
 * are called in order); with Micrometer, {@link RelockMetricsAutoConfiguration} adds one that records
 * lock events as meters. relock never closes the application's factory or client. Every bean backs off when the
 * application defines its own ({@code @ConditionalOnMissingBean}); {@code relock.enabled=false}
 * turns the whole configuration off. It runs after Boot's Redis auto-configuration (Boot 4.1's
 * {@code DataRedisAutoConfiguration}, Boot 3.5's {@code RedisAutoConfiguration}).
 *
 * <p>Thread-safety: configuration only; the beans it creates are thread-safe.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration"})
@ConditionalOnClass(LockClient.class)
@ConditionalOnProperty(prefix = "relock", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(RelockProperties.class)
@Import({RelockAutoConfiguration.FromConnectionFactory.class, RelockAutoConfiguration.FromLettuce.class,
        RelockAutoConfiguration.FromJedis.class})
public class RelockAutoConfiguration {

    /** Package-private: only Spring instantiates it. */
    RelockAutoConfiguration() {
    }

    /**
     * @param properties the bound {@code relock.*} properties
     * @param listeners the application's {@link LockEventListener} beans (and the Micrometer one of
     *     {@link RelockMetricsAutoConfiguration}): one is used as is, several are called in order
     * @return the options of the auto-configured client
     */
    @Bean
    @ConditionalOnMissingBean
    LockOptions relockLockOptions(RelockProperties properties, ObjectProvider<LockEventListener> listeners) {
        LockOptions options = properties.toLockOptions();
        List<LockEventListener> all = listeners.orderedStream().toList();
        if (all.isEmpty()) {
            return options;
        }
        return options.toBuilder().eventListener(all.size() == 1 ? all.get(0) : new LockEventListeners(all)).build();
    }

    /** From the application's {@code RedisConnectionFactory}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.data.redis.connection.RedisConnectionFactory")
    @ConditionalOnSingleCandidate(type = "org.springframework.data.redis.connection.RedisConnectionFactory")
    @ConditionalOnMissingBean(LockClient.class)
    static class FromConnectionFactory {

        @Bean(destroyMethod = "close")
        LockClient relockLockClient(org.springframework.data.redis.connection.RedisConnectionFactory factory,
                                    LockOptions options) {
            try {
                return RedisLocks.create(factory, options);
            } catch (IllegalArgumentException noDriverForFactory) {
                // No driver takes the factory itself (driver-spring-data-redis is absent): a
                // Lettuce-backed factory still has the Lettuce client it built, which driver-lettuce takes.
                if (factory instanceof org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory lettuce) {
                    try {
                        return RedisLocks.create(lettuce.getRequiredNativeClient(), options);
                    } catch (RuntimeException alsoFailed) {
                        alsoFailed.addSuppressed(noDriverForFactory);
                        throw alsoFailed;
                    }
                }
                throw noDriverForFactory;
            }
        }

        /**
         * @return a lifecycle that closes the client in the phase just above the factory's, so the
         *     client stops before the factory closes the connections it runs on
         */
        @Bean
        RelockClientLifecycle relockLockClientLifecycle(LockClient relockLockClient,
                org.springframework.data.redis.connection.RedisConnectionFactory factory) {
            return new RelockClientLifecycle(relockLockClient, factory);
        }
    }

    /** From a Lettuce client bean, when there is no connection factory. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.lettuce.core.AbstractRedisClient")
    @ConditionalOnBean(type = "io.lettuce.core.AbstractRedisClient")
    @ConditionalOnMissingBean(LockClient.class)
    static class FromLettuce {

        @Bean(destroyMethod = "close")
        LockClient relockLockClient(io.lettuce.core.AbstractRedisClient client, LockOptions options) {
            return RedisLocks.create(client, options);
        }
    }

    /** From a Jedis client bean, when there is no connection factory and no Lettuce client. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "redis.clients.jedis.UnifiedJedis")
    @ConditionalOnBean(type = "redis.clients.jedis.UnifiedJedis")
    @ConditionalOnMissingBean(LockClient.class)
    static class FromJedis {

        @Bean(destroyMethod = "close")
        LockClient relockLockClient(redis.clients.jedis.UnifiedJedis client, LockOptions options) {
            return RedisLocks.create(client, options);
        }
    }
}
