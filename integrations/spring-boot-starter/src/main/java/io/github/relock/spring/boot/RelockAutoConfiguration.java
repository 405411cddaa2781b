package io.github.relock.spring.boot;

import io.github.relock.api.LockClient;
import io.github.relock.api.LockEventListener;
import io.github.relock.api.LockOptions;
import io.github.relock.core.RedisLocks;
import java.util.List;
import org.springframework.beans.factory.ListableBeanFactory;
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
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Auto-configures one {@link LockClient} bean (closed when the context closes) and the
 * {@link LockOptions} it uses, from the {@code relock.*} properties ({@link RelockProperties}).
 *
 * <p>Where the client comes from, first match wins:
 * <ol>
 * <li>the application's Spring Data Redis {@code RedisConnectionFactory} (Lettuce- or Jedis-backed,
 *     standalone, cluster or Sentinel, as Boot configured it), through relock's
 *     {@code relock-spring-data-redis}; without that driver, a Lettuce-backed factory's own
 *     Lettuce client, through {@code driver-lettuce}; else the application's one Lettuce or Jedis
 *     client bean; else the start fails with a message that names the driver to add. This client
 *     is closed just before the factory stops ({@link RelockClientLifecycle}), not after;</li>
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
     * @param environment where a refused value is read back as the application wrote it, and
     *     {@code spring.application.name}, the owner info's default application
     * @param buildProperties the build info, whose version is the owner info's default version
     * @return the options of the auto-configured client
     * @throws InvalidRelockPropertyException if LockOptions refuses a property's value
     */
    @Bean
    @ConditionalOnMissingBean
    LockOptions relockLockOptions(RelockProperties properties, ObjectProvider<LockEventListener> listeners,
                                  Environment environment,
                                  ObjectProvider<org.springframework.boot.info.BuildProperties> buildProperties) {
        LockOptions options;
        try {
            options = properties.toLockOptions();
        } catch (InvalidRelockPropertyException e) {
            throw e.asWritten(environment.getProperty(e.property()));
        }
        org.springframework.boot.info.BuildProperties build = buildProperties.getIfAvailable();
        java.util.Optional<io.github.relock.api.OwnerInfo> owner = properties.getOwnerInfo().toOwnerInfo(
                environment.getProperty("spring.application.name"), build != null ? build.getVersion() : null);
        if (owner.isPresent()) {
            options = options.toBuilder().ownerInfo(owner.get()).build();
        }
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

        private static final String LETTUCE_CLIENT = "io.lettuce.core.AbstractRedisClient";
        private static final String JEDIS_CLIENT = "redis.clients.jedis.UnifiedJedis";

        /**
         * First match wins: a driver that takes the factory itself ({@code relock-spring-data-redis});
         * a Lettuce-backed factory's own Lettuce client ({@code driver-lettuce}); the application's
         * one Lettuce or Jedis client bean. Otherwise the start fails naming the artifact to add.
         */
        @Bean(destroyMethod = "close")
        LockClient relockLockClient(org.springframework.data.redis.connection.RedisConnectionFactory factory,
                                    LockOptions options, ListableBeanFactory beans) {
            IllegalArgumentException noDriverForFactory;
            try {
                return RedisLocks.create(factory, options);
            } catch (IllegalArgumentException e) {
                noDriverForFactory = e;
            }
            boolean lettuceBacked = ClassUtils.isPresent(LETTUCE_CLIENT, null)
                    && factory instanceof org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
            if (lettuceBacked) {
                // A Lettuce-backed factory has the Lettuce client it built, which driver-lettuce takes.
                Object client = ((org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory) factory)
                        .getRequiredNativeClient();
                try {
                    return RedisLocks.create(client, options);
                } catch (IllegalArgumentException e) {
                    noDriverForFactory.addSuppressed(e);
                }
            }
            Object clientBean = uniqueClientBean(beans);
            if (clientBean != null) {
                return RedisLocks.create(clientBean, options);
            }
            throw noDriverFor(factory, lettuceBacked, noDriverForFactory);
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

        /** The application's one Lettuce or Jedis client bean, or null (none, or several). */
        private static Object uniqueClientBean(ListableBeanFactory beans) {
            for (String type : new String[] {LETTUCE_CLIENT, JEDIS_CLIENT}) {
                if (ClassUtils.isPresent(type, null)) {
                    Object bean = beans.getBeanProvider(ClassUtils.resolveClassName(type, null)).getIfUnique();
                    if (bean != null) {
                        return bean;
                    }
                }
            }
            return null;
        }

        private static NoRelockDriverException noDriverFor(Object factory, boolean lettuceBacked,
                                                           IllegalArgumentException cause) {
            String description = "relock found no driver for the application's " + factory.getClass().getName()
                    + " (" + cause.getMessage() + ")";
            String springData = "io.github.relock:relock-spring-data-redis, which runs relock on the factory itself"
                    + " (its pool, timeouts, TLS, Sentinel or cluster settings)";
            String action;
            if (lettuceBacked) {
                action = "add io.github.relock:relock-lettuce (it runs on the factory's own Lettuce client) or "
                        + springData;
            } else if (factory.getClass().getName().contains(".jedis.")) {
                action = "add " + springData + ". driver-jedis cannot reach the JedisPool inside a"
                        + " JedisConnectionFactory; to use it, declare a Jedis RedisClient bean (or your own LockClient bean)";
            } else {
                action = "add " + springData + ", or declare your own LockClient bean";
            }
            return new NoRelockDriverException(description, action, cause);
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
