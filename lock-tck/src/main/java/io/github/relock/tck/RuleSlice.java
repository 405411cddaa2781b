package io.github.relock.tck;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs only the rules of a kit class (or of one nested chapter) that carry one of the given JUnit
 * tags; the others are reported as skipped, with {@link #elsewhere()} saying where they run. For a
 * slice of one chapter, which Maven's {@code -Dgroups} cannot express because it filters a whole
 * test run: {@code RedissonDriverTck} runs only the interop rules tagged {@code interop-pubsub}
 * (those where the driver's pub/sub matters), while another class of the same build runs the whole
 * chapter.
 *
 * <pre>{@code
 * @RuleSlice(value = "interop-pubsub", elsewhere = "JedisRedissonInteropTest runs the whole chapter")
 * class LettuceRedissonInteropSliceTest extends RedissonTck { ... }
 * }</pre>
 *
 * <p>On a nested class it applies to that chapter only; the innermost annotation wins. Every kit
 * class ({@link DriverKit}) evaluates it. The system
 * property {@value #ALL_RULES} ({@code -Drelock.tck.allRules=true}; the {@code full} profiles set
 * it) runs every rule of a sliced class.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface RuleSlice {

    /** System property: {@code true} runs every rule, slices or not. */
    String ALL_RULES = "relock.tck.allRules";

    /** @return JUnit tags: a rule runs when it carries (or its chapter carries) at least one; none: every rule */
    String[] value() default {};

    /**
     * @return JUnit tags: a rule that carries one (or whose chapter does) does not run here, so
     *     that two classes split a kit between two test JVMs: one with {@code value}, the other
     *     with the same tags as {@code except}
     */
    String[] except() default {};

    /** @return where the rules left out run, for the skip message */
    String elsewhere() default "";

    /** Disables the rules outside the innermost {@link RuleSlice}'s tags. */
    final class Condition implements ExecutionCondition {
        /** Created by JUnit. */
        public Condition() {
        }

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            if (context.getTestMethod().isEmpty()) {
                return ConditionEvaluationResult.enabled("a class: its rules decide");
            }
            Optional<RuleSlice> slice = innermost(context);
            if (slice.isEmpty()) {
                return ConditionEvaluationResult.enabled("no slice");
            }
            if (Boolean.getBoolean(ALL_RULES)) {
                return ConditionEvaluationResult.enabled("-D" + ALL_RULES + "=true: every rule");
            }
            Set<String> wanted = Set.of(slice.get().value());
            Set<String> left = Set.of(slice.get().except());
            if ((wanted.isEmpty() || context.getTags().stream().anyMatch(wanted::contains))
                    && context.getTags().stream().noneMatch(left::contains)) {
                return ConditionEvaluationResult.enabled("tagged " + context.getTags());
            }
            String where = slice.get().elsewhere().isEmpty() ? "" : "; " + slice.get().elsewhere();
            return ConditionEvaluationResult.disabled("not in this class's slice (rules tagged "
                    + Arrays.toString(slice.get().value()) + ", except " + Arrays.toString(slice.get().except()) + ")"
                    + where + "; -D" + ALL_RULES + "=true runs it here");
        }

        /**
         * The annotation on the test's class or on a class around it, innermost first: a nested
         * chapter, then the concrete kit class that runs it (a nested class's enclosing class is
         * the kit class that declares it, so the concrete one is found through the contexts), each
         * with its superclasses.
         */
        private static Optional<RuleSlice> innermost(ExtensionContext context) {
            for (ExtensionContext c = context; c != null; c = c.getParent().orElse(null)) {
                for (Class<?> k = c.getTestClass().orElse(null); k != null && k != Object.class; k = k.getSuperclass()) {
                    RuleSlice s = k.getAnnotation(RuleSlice.class);
                    if (s != null) {
                        return Optional.of(s);
                    }
                }
            }
            return Optional.empty();
        }
    }
}
