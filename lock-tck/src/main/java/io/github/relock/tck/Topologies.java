package io.github.relock.tck;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RedisTopology.Kind;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.ClassTemplate;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a kit class once per Redis topology: topology is a parameter of the kit, not a subclass.
 * Each topology is one JUnit class template invocation ("on CLUSTER"), which runs every nested
 * chapter with {@link DriverKit#topology()} answering that topology's shared fixture:
 * {@link RedisFixture#shared()}, {@link RedisCluster#shared()} or {@link RedisSentinelGroup#shared()},
 * each started once per test JVM on first use, so a fixture starts once per class and topology at
 * most, never per rule. The kit class makes clients for every topology it names through
 * {@link DriverKit#newNativeClient(RedisTopology)}.
 *
 * <pre>{@code
 * @Topologies({Kind.SINGLE, Kind.CLUSTER, Kind.SENTINEL})
 * class MyDriverTckTest extends DriverTck {
 *     protected RedisDriverProvider provider() { return new MyDriverProvider(); }
 *     protected Object newNativeClient(RedisServer server) { return new MyClient(server.uri()); }
 *     protected Object newNativeClient(RedisTopology t) { ... a client for t ... }
 *     protected void closeNativeClient(Object client) { ((MyClient) client).close(); }
 * }
 * }</pre>
 *
 * <p>The system property {@value #PROPERTY} (e.g. {@code -Drelock.tck.topologies=single}) narrows
 * every annotated class of the test run to the topologies it names, and
 * {@code relock.tck.topologies.<SimpleClassName>} one class, overriding the first; a class left
 * with none runs nothing. A build uses them to run a topology only in some profiles, or for a
 * client version that has no cluster or Sentinel client.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ClassTemplate
@ExtendWith(TopologyInvocations.class)
public @interface Topologies {

    /** System property: a comma-separated list of topology kinds to run (default: all the annotation names). */
    String PROPERTY = "relock.tck.topologies";

    /** @return the topologies to run the kit class on, in order */
    Kind[] value();

    /**
     * @return the server the class's one-server and cluster fixtures run: a server choice of
     *     {@code io.github.relock.embeddedredis.RedisProcess} ({@code "6.2"}, {@code "7.0"}, or the
     *     path of a {@code redis-server}-compatible executable), with fixtures of its own, shared
     *     by the classes that name it; empty (the default) for the suite's shared fixtures, which
     *     run {@code -Drelock.redis.server} or Redis 7.0.15. Sentinel always runs the suite's.
     */
    String server() default "";
}
