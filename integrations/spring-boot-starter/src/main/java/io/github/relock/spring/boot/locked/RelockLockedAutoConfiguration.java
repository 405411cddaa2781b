package io.github.relock.spring.boot.locked;

import io.github.relock.api.LockClient;
import io.github.relock.spring.boot.RelockAutoConfiguration;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import org.springframework.aop.Advisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Applies {@link Locked} to the application's beans, with the auto-configured {@link LockClient}.
 * Bad {@code @Locked} attributes fail the creation of the bean that carries them. The lock is
 * taken outside {@code @Transactional} (this advice's order is {@link #ORDER}, before the
 * transaction advice's default), so a transaction commits before the lock is released.
 * {@code relock.locked.enabled=false} turns it off.
 *
 * <p>A {@code CompletionStage} method runs, once the lock is granted, on the application's
 * {@code applicationTaskExecutor} (Boot's task executor, virtual threads when Boot uses them), else
 * on the common fork-join pool: never on a Redis driver's I/O thread.
 *
 * <p>Thread-safety: configuration only; the beans it creates are thread-safe.
 */
@AutoConfiguration(after = RelockAutoConfiguration.class)
@ConditionalOnClass({LockClient.class, Advisor.class})
@ConditionalOnBean(LockClient.class)
@ConditionalOnProperty(prefix = "relock.locked", name = "enabled", havingValue = "true", matchIfMissing = true)
@Import(RelockLockedAutoConfiguration.AutoProxy.class)
public class RelockLockedAutoConfiguration {

    /** Order of the {@code @Locked} advice: before (outside) advice of the default, lowest precedence. */
    public static final int ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

    private static final String TASK_EXECUTOR = "applicationTaskExecutor";

    /** Package-private: only Spring instantiates it. */
    RelockLockedAutoConfiguration() {
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LockedMethodInterceptor relockLockedInterceptor(ObjectProvider<LockClient> client,
            ConfigurableListableBeanFactory beans, ApplicationEventPublisher events) {
        return new LockedMethodInterceptor(client::getObject, beans, beans::resolveEmbeddedValue, events, () ->
                beans.containsBean(TASK_EXECUTOR) && beans.isTypeMatch(TASK_EXECUTOR, Executor.class)
                        ? beans.getBean(TASK_EXECUTOR, Executor.class) : ForkJoinPool.commonPool());
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static Advisor relockLockedAdvisor(LockedMethodInterceptor relockLockedInterceptor) {
        DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
                new AnnotationMatchingPointcut(null, Locked.class, true), relockLockedInterceptor);
        advisor.setOrder(ORDER);
        return advisor;
    }

    /** Checks every bean's {@code @Locked} methods as the bean is created, before it is proxied. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static BeanPostProcessor relockLockedChecker(ObjectProvider<LockedMethodInterceptor> interceptor) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessBeforeInitialization(Object bean, String beanName) {
                Class<?> type = AopUtils.getTargetClass(bean);
                if (AnnotationUtils.isCandidateClass(type, Locked.class) && !(bean instanceof LockedMethodInterceptor)) {
                    interceptor.getObject().check(type);
                }
                return bean;
            }
        };
    }

    /** Registers Spring's infrastructure auto-proxy creator, if the application has no proxy creator yet. */
    static class AutoProxy implements ImportBeanDefinitionRegistrar {
        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
