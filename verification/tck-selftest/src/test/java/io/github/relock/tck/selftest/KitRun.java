package io.github.relock.tck.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectNestedMethod;

import io.github.relock.tck.DriverTck;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

/**
 * Runs chosen rules of the driver contract kit against one kit class, through JUnit's
 * {@link EngineTestKit}, and answers which failed. Rules are chosen by their chapter's class and
 * number ({@code rule(WaitingChapter.class, "5.1")}), never by a class name in a string.
 */
final class KitRun {

    /**
     * A rule of a {@link DriverTck} chapter.
     *
     * @param chapter the chapter class that declares it
     * @param id its number, e.g. {@code 5.1}
     */
    record Rule(Class<?> chapter, String id) {
        @Override
        public String toString() {
            return id;
        }

        /** @return the rule's test method, found by its number ({@code rule5_1_...}) */
        String method() {
            String prefix = "rule" + id.replace('.', '_') + "_";
            return Arrays.stream(chapter.getDeclaredMethods()).map(Method::getName).filter(n -> n.startsWith(prefix))
                    .findFirst().orElseThrow(() -> new IllegalArgumentException(chapter.getSimpleName() + " has no rule " + id));
        }

        /** @return the class {@link DriverTck} nests the chapter as */
        Class<?> nested() {
            return Arrays.stream(DriverTck.class.getDeclaredClasses()).filter(c -> c.getSuperclass() == chapter)
                    .findFirst().orElseThrow(() -> new IllegalArgumentException(chapter.getSimpleName() + " is not in DriverTck"));
        }
    }

    private KitRun() {
    }

    /**
     * @param chapter a chapter of {@link DriverTck}
     * @param id the rule's number
     * @return the rule
     */
    static Rule rule(Class<?> chapter, String id) {
        Rule r = new Rule(chapter, id);
        r.method(); // fails now if there is no such rule
        return r;
    }

    /**
     * @param kit a {@link DriverTck} subclass
     * @param rules the rules to run
     * @return the numbers of the rules that failed, each with why (its exception, with the stack
     *     trace), so a control that fails unexpectedly can be told from the build log
     */
    static Map<String, Throwable> failed(Class<? extends DriverTck> kit, List<Rule> rules) {
        List<DiscoverySelector> selectors = new ArrayList<>();
        for (Rule r : rules) {
            selectors.add(selectNestedMethod(List.of(kit), r.nested(), r.method()));
        }
        Events tests = EngineTestKit.engine("junit-jupiter").selectors(selectors.toArray(new DiscoverySelector[0]))
                .execute().testEvents();
        assertEquals(rules.size(), tests.started().count(), () -> "every selected rule must run: " + rules);
        Map<String, Throwable> failed = new TreeMap<>();
        for (Event e : tests.failed().list()) {
            String method = e.getTestDescriptor().getLegacyReportingName().replace("()", "");
            Throwable why = e.getPayload(TestExecutionResult.class).flatMap(TestExecutionResult::getThrowable)
                    .orElseGet(() -> new AssertionError("failed without an exception"));
            rules.stream().filter(r -> r.method().equals(method)).forEach(r -> failed.put(r.id(), why));
        }
        return failed;
    }
}
