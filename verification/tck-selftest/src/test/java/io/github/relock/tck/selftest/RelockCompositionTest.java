package io.github.relock.tck.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.DriverKit;
import io.github.relock.tck.DriverTck;
import io.github.relock.tck.EngineSpec;
import io.github.relock.tck.RelockTck;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.redisson.RedissonEngineSpec;
import io.github.relock.tck.redisson.RedissonTck;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The kit's composed classes are the union of the kits they compose, not copies: the rules JUnit
 * discovers in a {@code RelockTck} are exactly those of {@code DriverTck}'s and {@code EngineSpec}'s
 * chapters, and in a {@code RedissonEngineSpec} those of {@code EngineSpec}'s and
 * {@code RedissonTck}'s, each once. Discovery only: no rule runs, no Redis.
 */
class RelockCompositionTest {

    @Test
    void relockTck_runsEveryRuleOfDriverTckAndEngineSpec_eachOnce() {
        assertComposed(rules(Relock.class), List.of(declared(DriverTck.class), declared(EngineSpec.class)),
                "RelockTck", "DriverTck or EngineSpec");
    }

    @Test
    void redissonEngineSpec_runsEveryRuleOfEngineSpecAndRedissonTck_eachOnce() {
        assertComposed(rules(RedissonEngine.class), List.of(declared(EngineSpec.class), declared(RedissonTck.class)),
                "RedissonEngineSpec", "EngineSpec or RedissonTck");
    }

    private static void assertComposed(List<String> composed, List<List<String>> parts, String name, String partNames) {
        TreeSet<String> union = new TreeSet<>();
        parts.forEach(union::addAll);
        Map<String, Long> twice = composed.stream().collect(Collectors.groupingBy(Function.identity(), TreeMap::new,
                Collectors.counting()));
        twice.values().removeIf(n -> n == 1);
        assertEquals(Map.of(), twice, "rules " + name + " runs more than once");
        TreeSet<String> missing = new TreeSet<>(union);
        missing.removeAll(composed);
        assertEquals(new TreeSet<>(), missing, "rules of " + partNames + " that " + name + " does not run");
        TreeSet<String> extra = new TreeSet<>(composed);
        extra.removeAll(union);
        assertEquals(new TreeSet<>(), extra, "rules " + name + " runs that neither " + partNames + " has");
    }

    /**
     * @return the rules of a kit's chapters as its classes declare them (what JUnit would find in
     *     each chapter class the kit nests, {@link RuleCatalogue#chaptersOf}), as "ChapterClass#method"
     */
    private static List<String> declared(Class<?> kit) {
        return RuleCatalogue.chaptersOf(kit).stream()
                .flatMap(c -> AnnotationSupport.findAnnotatedMethods(c, Test.class, HierarchyTraversalMode.TOP_DOWN).stream())
                .map(m -> m.getDeclaringClass().getSimpleName() + "#" + m.getName()).distinct().toList();
    }

    /** @return each rule JUnit discovers in the kit class, as "ChapterClass#method", in discovery order */
    private static List<String> rules(Class<? extends DriverKit> kit) {
        TestPlan plan = LauncherFactory.create().discover(
                LauncherDiscoveryRequestBuilder.request().selectors(selectClass(kit)).build());
        List<String> rules = new ArrayList<>();
        for (TestIdentifier root : plan.getRoots()) {
            collect(plan, root, rules);
        }
        if (rules.isEmpty()) {
            throw new AssertionError("JUnit discovered no rule in " + kit.getName());
        }
        return rules;
    }

    private static void collect(TestPlan plan, TestIdentifier id, List<String> rules) {
        if (id.isTest() && id.getSource().orElse(null) instanceof MethodSource m) {
            Method method = m.getJavaMethod();
            rules.add(method.getDeclaringClass().getSimpleName() + "#" + method.getName());
        }
        plan.getChildren(id).forEach(c -> collect(plan, c, rules));
    }

    /** The composed kits, with hooks that are never called: discovery runs no rule. */
    static class RedissonEngine extends RedissonEngineSpec {
        @Override
        protected RedisDriverProvider provider() {
            throw new UnsupportedOperationException("discovery only");
        }

        @Override
        protected Object newNativeClient(RedisServer server) {
            throw new UnsupportedOperationException("discovery only");
        }

        @Override
        protected void closeNativeClient(Object nativeClient) {
        }
    }

    static class Relock extends RelockTck {
        @Override
        protected RedisDriverProvider provider() {
            throw new UnsupportedOperationException("discovery only");
        }

        @Override
        protected Object newNativeClient(RedisServer server) {
            throw new UnsupportedOperationException("discovery only");
        }

        @Override
        protected void closeNativeClient(Object nativeClient) {
        }
    }
}
