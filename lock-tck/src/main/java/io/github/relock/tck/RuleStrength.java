package io.github.relock.tck;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * How binding a rule is for a driver. On a chapter class it is the default of the chapter's rules;
 * on a rule it overrides that default. A rule with neither is {@link Strength#OPTIONAL}.
 * {@code lock-tck/RULES.md} lists every rule with its strength.
 *
 * <ul>
 * <li>{@link Strength#REQUIRED}: a driver must pass it. What it checks depends on the driver
 *     keeping the {@code CommandExecutor} contract, and {@code verification/tck-selftest} shows a broken
 *     driver failing it. Every required rule is in {@link DriverTck}.</li>
 * <li>{@link Strength#OPTIONAL}: a conforming driver passes it too, but what it checks is the
 *     engine's (a driver cannot break it without breaking a required rule first), or it needs
 *     something a driver may lack (a capability, Redisson, a JDK, a topology); {@link #because()}
 *     says which. relock runs it on its reference driver.</li>
 * </ul>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface RuleStrength {

    /** @return the strength */
    Strength value();

    /** @return why an optional rule is optional, for the catalogue; empty for a required one */
    String because() default "";

    /** How binding a rule is for a driver. */
    enum Strength {
        /** A driver must pass it. */
        REQUIRED,
        /** A conforming driver passes it, but it checks the engine or needs what a driver may lack. */
        OPTIONAL
    }
}
