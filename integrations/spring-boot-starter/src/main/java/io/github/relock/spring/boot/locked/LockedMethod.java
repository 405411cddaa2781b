package io.github.relock.spring.boot.locked;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringValueResolver;

/**
 * One {@link Locked} method, its attributes parsed and checked: everything a call needs but the
 * key's value. Built when the bean is created, so bad attributes fail the start.
 *
 * <p>Thread-safety: immutable.
 */
final class LockedMethod {

    static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final Pattern POSITIONAL = Pattern.compile("[pa](\\d+)");
    private static final String MONO = "reactor.core.publisher.Mono";
    private static final String FLUX = "reactor.core.publisher.Flux";
    private static final String RELOCK_REACTOR = "io.github.relock.reactor.ReactiveLock";
    /** What Spring AOP needs to run a suspend function as a Publisher (its CoroutinesUtils). */
    private static final String COROUTINES_REACTOR = "kotlinx.coroutines.reactor.MonoKt";
    private static final String FLOW = "kotlinx.coroutines.flow.Flow";

    /**
     * How the lock follows the method's end. {@code SUSPEND}: a Kotlin suspend function, which
     * Spring AOP (6.1+) invokes as a {@code Publisher} of its result and whose caller it suspends
     * until the publisher the advice returns completes; locked like a {@code Mono}.
     */
    enum Shape { BLOCKING, STAGE, MONO, FLUX, SUSPEND }

    final Method method;
    final String description;
    final String keySource;
    final Expression key;
    final Duration wait;
    final Duration lease; // null: the watchdog keeps the lock until the method ends
    final Locked.Kind kind;
    final Locked.OnTimeout onTimeout;
    final Method fallback; // null unless FALLBACK
    final Shape shape;

    private LockedMethod(Method method, String description, String keySource, Expression key, Duration wait,
                         Duration lease, Locked.Kind kind, Locked.OnTimeout onTimeout, Method fallback, Shape shape) {
        this.method = method;
        this.description = description;
        this.keySource = keySource;
        this.key = key;
        this.wait = wait;
        this.lease = lease;
        this.kind = kind;
        this.onTimeout = onTimeout;
        this.fallback = fallback;
        this.shape = shape;
    }

    /**
     * @param method the annotated method, as declared on the bean's class
     * @param targetClass the bean's class (where a fallback is looked up)
     * @param locked its annotation
     * @param placeholders resolves {@code ${...}} in the durations
     * @throws IllegalStateException naming the method and the attribute, if one is unusable
     */
    static LockedMethod of(Method method, Class<?> targetClass, Locked locked, StringValueResolver placeholders) {
        String description = describe(method);
        String prefix = "@Locked on " + description + ": ";
        int modifiers = method.getModifiers();
        if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
            throw new IllegalStateException(prefix + "the method is private, static or final, so no proxy can lock"
                    + " it; make it a public (or package-private) instance method");
        }
        Shape shape = shapeOf(method, prefix);
        String keySource = locked.key();
        if (keySource.isBlank()) {
            throw new IllegalStateException(prefix + "key is empty; give a SpEL expression such as \"'order:' + #id\"");
        }
        Expression key;
        try {
            key = PARSER.parseExpression(keySource);
        } catch (ParseException e) {
            throw new IllegalStateException(prefix + "key \"" + keySource + "\" is not a valid SpEL expression: "
                    + e.getMessage(), e);
        }
        checkVariables(method, key, keySource, prefix);
        Duration wait = duration(locked.waitTime(), "waitTime", placeholders, prefix);
        if (wait == null) {
            throw new IllegalStateException(prefix + "waitTime is empty; give a duration such as \"5s\" (\"0s\" tries once)");
        }
        if (wait.isNegative()) {
            throw new IllegalStateException(prefix + "waitTime \"" + locked.waitTime() + "\" is negative");
        }
        Duration lease = duration(locked.leaseTime(), "leaseTime", placeholders, prefix);
        if (lease != null && lease.toMillis() < 1) {
            throw new IllegalStateException(prefix + "leaseTime \"" + locked.leaseTime() + "\" is not positive (at least 1ms);"
                    + " leave it empty for the watchdog");
        }
        Method fallback = null;
        if (locked.onTimeout() == Locked.OnTimeout.FALLBACK) {
            fallback = fallback(method, targetClass, locked.fallback(), prefix);
        } else if (!locked.fallback().isEmpty()) {
            throw new IllegalStateException(prefix + "fallback \"" + locked.fallback() + "\" is set but onTimeout is "
                    + locked.onTimeout() + "; set onTimeout = FALLBACK or remove the fallback");
        }
        if (locked.onTimeout() == Locked.OnTimeout.SKIP && method.getReturnType().isPrimitive()
                && method.getReturnType() != void.class) {
            throw new IllegalStateException(prefix + "onTimeout SKIP cannot return a " + method.getReturnType()
                    + "; return a wrapper or Optional, or use THROW or FALLBACK");
        }
        if (locked.onTimeout() == Locked.OnTimeout.SKIP && shape == Shape.SUSPEND) {
            MethodParameter result = new MethodParameter(method, -1);
            if (result.getParameterType() != void.class && !result.isOptional()) {
                throw new IllegalStateException(prefix + "onTimeout SKIP returns null, but the function returns a"
                        + " non-null " + result.getParameterType().getSimpleName() + "; make the return type"
                        + " nullable, or use THROW or FALLBACK");
            }
        }
        return new LockedMethod(method, description, keySource, key, wait, lease, locked.kind(), locked.onTimeout(),
                fallback, shape);
    }

    /** @return what SKIP returns for this method */
    Object skipped() {
        return method.getReturnType() == Optional.class ? Optional.empty() : null;
    }

    /** @return Class.method(Parameter, ...), without a suspend function's trailing Continuation */
    static String describe(Method method) {
        return ClassUtils.getUserClass(method.getDeclaringClass()).getSimpleName() + "." + method.getName()
                + parameters(method);
    }

    private static String parameters(Method method) {
        Class<?>[] types = method.getParameterTypes();
        int shown = KotlinDetector.isSuspendingFunction(method) ? types.length - 1 : types.length;
        return Arrays.stream(types, 0, shown).map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
    }

    private static Shape shapeOf(Method method, String prefix) {
        if (KotlinDetector.isSuspendingFunction(method)) {
            return suspending(method, prefix);
        }
        Class<?> type = method.getReturnType();
        String name = type.getName();
        if (name.equals(MONO) || name.equals(FLUX)) {
            if (!ClassUtils.isPresent(RELOCK_REACTOR, LockedMethod.class.getClassLoader())) {
                throw new IllegalStateException(prefix + "returns a " + type.getSimpleName()
                        + ", which needs io.github.relock:relock-reactor on the class path");
            }
            return name.equals(MONO) ? Shape.MONO : Shape.FLUX;
        }
        if (type == CompletionStage.class || type == CompletableFuture.class) {
            return Shape.STAGE;
        }
        if (Future.class.isAssignableFrom(type) || CompletionStage.class.isAssignableFrom(type)
                || isReactiveStream(type)) {
            throw new IllegalStateException(prefix + "returns a " + name + ", whose end the lock cannot follow;"
                    + " return a CompletionStage, CompletableFuture, Mono or Flux, or a plain value");
        }
        return Shape.BLOCKING;
    }

    /**
     * A suspend function: Spring AOP runs it as a Publisher only with kotlinx-coroutines-reactor
     * (else the advice would see the function's first suspension as its end, and release the lock
     * there), and reads its Kotlin return type with kotlin-reflect.
     */
    private static Shape suspending(Method method, String prefix) {
        ClassLoader loader = LockedMethod.class.getClassLoader();
        String missing = !ClassUtils.isPresent(COROUTINES_REACTOR, loader)
                ? "org.jetbrains.kotlinx:kotlinx-coroutines-reactor"
                : !KotlinDetector.isKotlinReflectPresent() ? "org.jetbrains.kotlin:kotlin-reflect"
                : !ClassUtils.isPresent(RELOCK_REACTOR, loader) ? "io.github.relock:relock-reactor" : null;
        if (missing != null) {
            throw new IllegalStateException(prefix + "is a Kotlin suspend function, which needs " + missing
                    + " on the class path (with kotlinx-coroutines-reactor, kotlin-reflect and relock-reactor,"
                    + " Spring AOP runs it as a Publisher that the lock follows)");
        }
        Class<?> result = returnType(method);
        if (isReactiveStream(result) || result.getName().equals(MONO) || result.getName().equals(FLUX)
                || Future.class.isAssignableFrom(result) || CompletionStage.class.isAssignableFrom(result)) {
            throw new IllegalStateException(prefix + "is a suspend function returning a " + result.getName()
                    + ", whose end the lock cannot follow; return the value itself");
        }
        return Shape.SUSPEND;
    }

    /** @return a suspend function's declared (Kotlin) return type, {@code void} for Unit; the return type otherwise */
    private static Class<?> returnType(Method method) {
        return KotlinDetector.isSuspendingFunction(method) ? new MethodParameter(method, -1).getParameterType()
                : method.getReturnType();
    }

    private static boolean isReactiveStream(Class<?> type) {
        for (Class<?> c : ClassUtils.getAllInterfacesForClassAsSet(type)) {
            if (c.getName().equals("org.reactivestreams.Publisher") || c.getName().equals(FLOW)) {
                return true;
            }
        }
        return type.getName().equals("org.reactivestreams.Publisher") || type.getName().equals(FLOW)
                || type == java.util.concurrent.Flow.Publisher.class;
    }

    private static void checkVariables(Method method, Expression key, String keySource, String prefix) {
        if (!(key instanceof SpelExpression spel)) {
            return;
        }
        String[] names = PARAMETER_NAMES.getParameterNames(method);
        Set<String> known = new HashSet<>(Set.of("root", "this"));
        if (names != null) {
            known.addAll(Arrays.asList(names));
        }
        Set<String> unknown = new HashSet<>();
        collectUnknown(spel.getAST(), known, method.getParameterCount(), unknown);
        if (!unknown.isEmpty()) {
            String parameters = names == null
                    ? "its parameter names are not in the class file (compile with -parameters, or use #p0, #p1, ...)"
                    : "its parameters are " + Arrays.toString(names);
            throw new IllegalStateException(prefix + "key \"" + keySource + "\" names " + unknown.stream().sorted()
                    .map(n -> "#" + n).collect(Collectors.joining(", ")) + ", but " + parameters);
        }
    }

    private static void collectUnknown(SpelNode node, Set<String> known, int parameterCount, Set<String> unknown) {
        if (node instanceof VariableReference) {
            String name = node.toStringAST().substring(1);
            var positional = POSITIONAL.matcher(name);
            boolean ok = known.contains(name) || (positional.matches() && Integer.parseInt(positional.group(1)) < parameterCount);
            if (!ok) {
                unknown.add(name);
            }
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            collectUnknown(node.getChild(i), known, parameterCount, unknown);
        }
    }

    private static Duration duration(String value, String attribute, StringValueResolver placeholders, String prefix) {
        String resolved;
        try {
            resolved = placeholders == null ? value : placeholders.resolveStringValue(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(prefix + attribute + " \"" + value + "\": " + e.getMessage(), e);
        }
        if (resolved == null || resolved.isBlank()) {
            return null;
        }
        try {
            return DurationStyle.detectAndParse(resolved.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(prefix + attribute + " \"" + value + "\""
                    + (resolved.equals(value) ? "" : " (\"" + resolved + "\")")
                    + " is not a duration; write it as 500ms, 5s, 2m or PT5S", e);
        }
    }

    private static Method fallback(Method method, Class<?> targetClass, String name, String prefix) {
        if (name.isEmpty()) {
            throw new IllegalStateException(prefix + "onTimeout FALLBACK needs fallback, the name of a method of the"
                    + " same bean with the same parameters");
        }
        Method found = ReflectionUtils.findMethod(targetClass, name, method.getParameterTypes());
        if (found == null) {
            throw new IllegalStateException(prefix + "fallback \"" + name + "\" names no method "
                    + (KotlinDetector.isSuspendingFunction(method) ? "suspend " : "") + name + parameters(method)
                    + " on " + ClassUtils.getUserClass(targetClass).getSimpleName());
        }
        Class<?> expected = returnType(method);
        Class<?> returned = returnType(found);
        if (!ClassUtils.isAssignable(expected, returned)) {
            throw new IllegalStateException(prefix + "fallback " + describe(found) + " returns "
                    + returned.getSimpleName() + ", not a " + expected.getSimpleName());
        }
        if (Modifier.isStatic(found.getModifiers())) {
            throw new IllegalStateException(prefix + "fallback " + describe(found) + " is static; make it an instance method");
        }
        ReflectionUtils.makeAccessible(found);
        return found;
    }
}
