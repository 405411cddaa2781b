/**
 * relock's Spring Boot auto-configuration. Boot applications usually run on the class path, where
 * this descriptor only gives the jar its name; on the module path, Spring reads the configuration
 * classes reflectively, so the package is open to it. Every Redis client, Spring Data Redis, and
 * relock's Micrometer and Spring Integration modules are optional: each auto-configuration path
 * checks for its classes first.
 */
module io.github.relock.spring.boot {
    // transitive: the exported configuration classes carry these modules' types and annotations
    requires transitive io.github.relock.core;
    requires spring.core;
    requires spring.beans;
    requires spring.aop;
    requires spring.expression;
    requires static io.github.relock.reactor;
    requires static reactor.core;
    requires static org.reactivestreams;
    requires transitive spring.context;
    requires transitive spring.boot;
    requires transitive spring.boot.autoconfigure;
    requires static spring.data.redis;
    requires static lettuce.core;
    requires static redis.clients.jedis;
    requires static transitive io.github.relock.micrometer;
    requires static transitive micrometer.core;
    requires static io.github.relock.spring.integration;
    requires static spring.boot.actuator;
    requires static spring.boot.actuator.autoconfigure;
    exports io.github.relock.spring.boot;
    exports io.github.relock.spring.boot.locked;
    opens io.github.relock.spring.boot to spring.core, spring.beans, spring.context, spring.boot;
    opens io.github.relock.spring.boot.locked to spring.core, spring.beans, spring.context, spring.boot, spring.aop;
}
