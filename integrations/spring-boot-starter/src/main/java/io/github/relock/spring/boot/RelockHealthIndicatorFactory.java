package io.github.relock.spring.boot;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;
import io.github.relock.api.LockClient;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.util.ClassUtils;

/*
 * Design: one health indicator for two generations of Boot. Boot 4 keeps HealthIndicator, Health
 * and its Builder in org.springframework.boot.health.contributor (spring-boot-health); Boot 3.5 in
 * org.springframework.boot.actuate.health (spring-boot-actuator). The starter is compiled against
 * one Boot and runs on both, so it refers to neither: this factory bean makes a proxy of whichever
 * HealthIndicator interface is on the class path (Boot 4's first), whose health() builds that
 * package's Health with the two calls both share (new Health.Builder().status(code),
 * withDetails(map), build()). Its object type is that interface, so Boot's health registry finds
 * it by type, named "relock" after the bean name relockHealthIndicator. The client is resolved
 * when the indicator is made, not when the factory is: Spring asks every factory bean its object
 * type while it resolves the client's own LockEventListener beans, so a factory that needed the
 * client would be a dependency cycle.
 */
/**
 * Makes the {@code relock} health indicator, a {@code HealthIndicator} of the running Boot
 * (4.x or 3.5) reporting {@link RelockHealth}. Package-private.
 *
 * <p>Thread-safety: the indicator it makes is safe for use by several threads.
 */
final class RelockHealthIndicatorFactory implements FactoryBean<Object>, DisposableBean {

    /** Boot 4's package of health types, then Boot 3.5's. */
    private static final String[] PACKAGES = {
            "org.springframework.boot.health.contributor.", "org.springframework.boot.actuate.health."};

    private final ObjectProvider<LockClient> client;
    private final Class<?> indicatorType;
    private final Class<?> builderType;
    private volatile RelockHealth health;

    /** @param client the application's one lock client, resolved when the indicator is made */
    RelockHealthIndicatorFactory(ObjectProvider<LockClient> client) {
        this.client = client;
        ClassLoader loader = RelockHealthIndicatorFactory.class.getClassLoader();
        String pkg = null;
        for (String p : PACKAGES) {
            if (ClassUtils.isPresent(p + "HealthIndicator", loader)) {
                pkg = p;
                break;
            }
        }
        if (pkg == null) {
            throw new IllegalStateException("no Spring Boot HealthIndicator on the class path (looked in "
                    + String.join(", ", PACKAGES) + ")");
        }
        this.indicatorType = ClassUtils.resolveClassName(pkg + "HealthIndicator", loader);
        this.builderType = ClassUtils.resolveClassName(pkg + "Health$Builder", loader);
    }

    /** @return whether either Boot's health indicator type is on the class path */
    static boolean healthPresent() {
        ClassLoader loader = RelockHealthIndicatorFactory.class.getClassLoader();
        for (String p : PACKAGES) {
            if (ClassUtils.isPresent(p + "HealthIndicator", loader)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public synchronized Object getObject() {
        RelockHealth health = this.health;
        if (health == null) {
            health = new RelockHealth(client.getObject());
            this.health = health;
        }
        RelockHealth checked = health;
        InvocationHandler handler = (proxy, method, args) -> switch (method.getName()) {
            case "health" -> method.getParameterCount() == 0 ? build(checked.check())
                    : InvocationHandler.invokeDefault(proxy, method, args);
            case "toString" -> "RelockHealthIndicator[" + indicatorType.getName() + "]";
            case "hashCode" -> System.identityHashCode(proxy);
            case "equals" -> proxy == args[0];
            default -> method.isDefault() ? InvocationHandler.invokeDefault(proxy, method, args)
                    : unsupported(method);
        };
        return Proxy.newProxyInstance(indicatorType.getClassLoader(), new Class<?>[] {indicatorType}, handler);
    }

    private static Object unsupported(Method method) {
        throw new UnsupportedOperationException("relock's health indicator has no " + method);
    }

    /** {@code new Health.Builder().status(code).withDetails(details).build()}, in the running Boot's package. */
    private Object build(RelockHealth.Result result) throws ReflectiveOperationException {
        Object builder = builderType.getConstructor().newInstance();
        builder = builderType.getMethod("status", String.class).invoke(builder, result.status());
        builder = builderType.getMethod("withDetails", Map.class).invoke(builder, result.details());
        return builderType.getMethod("build").invoke(builder);
    }

    @Override
    public Class<?> getObjectType() {
        return indicatorType;
    }

    @Override
    public void destroy() {
        RelockHealth h = health;
        if (h != null) {
            h.close();
        }
    }
}
