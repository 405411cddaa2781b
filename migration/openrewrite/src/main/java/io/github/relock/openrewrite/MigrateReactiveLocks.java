package io.github.relock.openrewrite;

import java.util.List;
import java.util.Objects;
import org.openrewrite.ExecutionContext;
import org.openrewrite.Preconditions;
import org.openrewrite.Recipe;
import org.openrewrite.TreeVisitor;
import org.openrewrite.java.JavaParser;
import org.openrewrite.java.JavaTemplate;
import org.openrewrite.java.JavaVisitor;
import org.openrewrite.java.MethodMatcher;
import org.openrewrite.java.search.UsesType;
import org.openrewrite.java.tree.Expression;
import org.openrewrite.java.tree.J;
import org.openrewrite.java.tree.JavaType;

/**
 * Moves Redisson's reactive locks onto relock's Reactor view, where the shape is recognisable.
 * Redisson's {@code RLockReactive} names the owner with a caller-chosen thread id; relock's
 * {@code ReactiveLock} gives each acquisition a lease of its own, and releases it whatever the work
 * does. So:
 * <ul>
 *   <li>{@code reactiveClient.getLock(name)} (and {@code getFairLock}, {@code getSpinLock}) becomes
 *       {@code ReactiveLock.of(reactiveClient.getLock(name))}, the client then being a
 *       {@code LockClient} (relock has one client for blocking, async and reactive code);</li>
 *   <li>{@code redisson.reactive()} becomes {@code redisson};</li>
 *   <li>the chain {@code lock.lock(id).then(work).then(lock.unlock(id))} (with or without a lease
 *       time) becomes {@code lock.withLockMono(wait, lease -> work).then()}: the wait is unbounded as
 *       Redisson's {@code lock} is, and the lock is released when the work fails or is cancelled too,
 *       which the chain did not do.</li>
 * </ul>
 * Every other {@code RLockReactive} call with a thread id, and every other reactive-client method, is
 * left for {@link FlagUnmigratableRedissonCode} to mark.
 *
 * <p>Thread-safety: stateless; OpenRewrite may run it on several files at once.
 */
public final class MigrateReactiveLocks extends Recipe {

    static final String REACTIVE_CLIENT = "org.redisson.api.RedissonReactiveClient";
    static final String REACTIVE_LOCK = "org.redisson.api.RLockReactive";
    private static final String RELOCK_REACTIVE_LOCK = "io.github.relock.reactor.ReactiveLock";

    /** The reactive client's getters that relock's {@code LockClient} has, returning a lock. */
    static final List<MethodMatcher> LOCK_GETTERS = List.of(
            new MethodMatcher(REACTIVE_CLIENT + " getLock(String)", true),
            new MethodMatcher(REACTIVE_CLIENT + " getFairLock(String)", true),
            new MethodMatcher(REACTIVE_CLIENT + " getSpinLock(String)", true));
    static final MethodMatcher REACTIVE_VIEW = new MethodMatcher("org.redisson.api.RedissonClient reactive()", true);

    private static final MethodMatcher THEN = new MethodMatcher("reactor.core.publisher.Mono then(reactor.core.publisher.Mono)");
    private static final MethodMatcher LOCK = new MethodMatcher(REACTIVE_LOCK + " lock(long)", true);
    private static final MethodMatcher LOCK_LEASED = new MethodMatcher(REACTIVE_LOCK + " lock(long, java.util.concurrent.TimeUnit, long)", true);
    private static final MethodMatcher UNLOCK = new MethodMatcher(REACTIVE_LOCK + " unlock(long)", true);

    /** What the templates need of relock's API, so the recipe runs without relock on the class path. */
    private static final String[] STUBS = {
        """
        package io.github.relock.api;
        public interface DistributedLock {}
        """,
        """
        package io.github.relock.api;
        public interface LockLease {}
        """,
        """
        package io.github.relock.reactor;
        import io.github.relock.api.DistributedLock;
        import io.github.relock.api.LockLease;
        import java.time.Duration;
        import java.util.function.Function;
        import reactor.core.publisher.Mono;
        public final class ReactiveLock {
            public static ReactiveLock of(DistributedLock lock) { return null; }
            public <T> Mono<T> withLockMono(Duration waitTime, Function<? super LockLease, ? extends Mono<? extends T>> work) { return null; }
            public <T> Mono<T> withLockMono(Duration waitTime, Duration leaseTime, Function<? super LockLease, ? extends Mono<? extends T>> work) { return null; }
        }
        """,
        """
        package reactor.core.publisher;
        public abstract class Mono<T> { public final Mono<Void> then() { return null; } }
        """
    };

    /** A recipe with no options. */
    public MigrateReactiveLocks() {
    }

    @Override
    public String getDisplayName() {
        return "Move Redisson reactive locks to relock's Reactor view";
    }

    @Override
    public String getDescription() {
        return "Wraps the reactive client's locks in `ReactiveLock.of(...)`, drops `reactive()`, and rewrites "
                + "`lock.lock(id).then(work).then(lock.unlock(id))` into `lock.withLockMono(wait, lease -> work).then()`.";
    }

    private static JavaParser.Builder<?, ?> parser() {
        return JavaParser.fromJavaVersion().dependsOn(STUBS);
    }

    @Override
    public TreeVisitor<?, ExecutionContext> getVisitor() {
        return Preconditions.check(Preconditions.or(new UsesType<>(REACTIVE_CLIENT, false),
                new UsesType<>(REACTIVE_LOCK, false), new UsesType<>("org.redisson.api.RedissonClient", false)),
                new JavaVisitor<ExecutionContext>() {
                    @Override
                    public J visitMethodInvocation(J.MethodInvocation method, ExecutionContext ctx) {
                        J visited = super.visitMethodInvocation(method, ctx);
                        if (!(visited instanceof J.MethodInvocation m)) {
                            return visited;
                        }
                        if (REACTIVE_VIEW.matches(m) && m.getSelect() != null) {
                            return m.getSelect().withPrefix(m.getPrefix());
                        }
                        if (LOCK_GETTERS.stream().anyMatch(g -> g.matches(m))) {
                            maybeAddImport(RELOCK_REACTIVE_LOCK);
                            return JavaTemplate.builder("ReactiveLock.of(#{any()})")
                                    .imports(RELOCK_REACTIVE_LOCK).javaParser(parser()).build()
                                    .apply(getCursor(), m.getCoordinates().replace(), m);
                        }
                        J.MethodInvocation chain = lockWorkUnlock(m);
                        if (chain != null) {
                            J.MethodInvocation locked = (J.MethodInvocation) ((J.MethodInvocation) m.getSelect()).getSelect();
                            Expression work = ((J.MethodInvocation) m.getSelect()).getArguments().get(0);
                            maybeAddImport("java.time.Duration");
                            if (LOCK_LEASED.matches(locked)) {
                                return JavaTemplate.builder("#{any(" + RELOCK_REACTIVE_LOCK + ")}.withLockMono("
                                                + "Duration.ofMillis(Long.MAX_VALUE), Duration.of(#{any(long)}, "
                                                + "#{any(java.util.concurrent.TimeUnit)}.toChronoUnit()), "
                                                + "lease -> #{any(reactor.core.publisher.Mono)}).then()")
                                        .imports("java.time.Duration").javaParser(parser()).build()
                                        .apply(getCursor(), m.getCoordinates().replace(), locked.getSelect(),
                                                locked.getArguments().get(0), locked.getArguments().get(1), work);
                            }
                            return JavaTemplate.builder("#{any(" + RELOCK_REACTIVE_LOCK + ")}.withLockMono("
                                            + "Duration.ofMillis(Long.MAX_VALUE), lease -> #{any(reactor.core.publisher.Mono)}).then()")
                                    .imports("java.time.Duration").javaParser(parser()).build()
                                    .apply(getCursor(), m.getCoordinates().replace(), locked.getSelect(), work);
                        }
                        return m;
                    }
                });
    }

    /**
     * @return {@code m} if it is {@code L.lock([lease, unit,] id).then(work).then(L.unlock(id))} with
     *     the same lock expression and the same id on both ends, else null
     */
    private static J.MethodInvocation lockWorkUnlock(J.MethodInvocation m) {
        if (!THEN.matches(m) || !(m.getSelect() instanceof J.MethodInvocation middle) || !THEN.matches(middle)
                || !(middle.getSelect() instanceof J.MethodInvocation locked)
                || !(LOCK.matches(locked) || LOCK_LEASED.matches(locked))
                || !(m.getArguments().get(0) instanceof J.MethodInvocation unlocked) || !UNLOCK.matches(unlocked)
                || locked.getSelect() == null || unlocked.getSelect() == null) {
            return null;
        }
        Expression lockId = locked.getArguments().get(locked.getArguments().size() - 1);
        Expression unlockId = unlocked.getArguments().get(0);
        boolean sameLock = sameVariable(locked.getSelect(), unlocked.getSelect());
        boolean sameId = sameVariable(lockId, unlockId);
        return sameLock && sameId ? m : null;
    }

    /** Both are the same local variable or field (a side-effect-free name), by type attribution. */
    private static boolean sameVariable(Expression a, Expression b) {
        if (!(a instanceof J.Identifier x) || !(b instanceof J.Identifier y)) {
            return false;
        }
        JavaType.Variable vx = x.getFieldType();
        JavaType.Variable vy = y.getFieldType();
        return vx != null && vy != null && x.getSimpleName().equals(y.getSimpleName())
                && Objects.equals(vx.getOwner(), vy.getOwner());
    }
}
