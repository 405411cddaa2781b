package io.github.relock.openrewrite;

import java.util.List;
import java.util.stream.Stream;
import org.openrewrite.ExecutionContext;
import org.openrewrite.Preconditions;
import org.openrewrite.Recipe;
import org.openrewrite.TreeVisitor;
import org.openrewrite.java.JavaIsoVisitor;
import org.openrewrite.java.MethodMatcher;
import org.openrewrite.java.search.UsesType;
import org.openrewrite.java.tree.J;

/**
 * Marks the Redisson calls that have no relock equivalent, before the types change under them:
 * {@code Redisson.create(...)} (a Redisson {@code Config} does not translate into a Redis client), and
 * every {@code RedissonClient} method {@code LockClient} lacks (maps, buckets, topics, the
 * {@code CommonOptions} overloads, the grouped multi-lock, {@code shutdown} with a quiet period...),
 * the reactive client's methods other than its lock getters, the reactive lock's thread-id calls
 * {@link MigrateReactiveLocks} did not recognise, and Redisson 3's own {@code RFuture} methods ({@code getNow()}, {@code sync()}, {@code await()}...).
 * The marked code is left as it is, so it stops compiling once {@code RedissonClient} becomes
 * {@code LockClient}: nothing compiles into something else.
 *
 * <p>Thread-safety: stateless; OpenRewrite may run it on several files at once.
 */
public final class FlagUnmigratableRedissonCode extends Recipe {

    private static final String CLIENT = "org.redisson.api.RedissonClient";
    private static final MethodMatcher CREATE = new MethodMatcher("org.redisson.Redisson create*(..)");
    private static final MethodMatcher ANY_CLIENT_METHOD = new MethodMatcher(CLIENT + " *(..)", true);
    /** The RedissonClient methods relock's LockClient has, with the same arguments (after the renames). */
    private static final List<MethodMatcher> MIGRATED = Stream.concat(
            Stream.of("getLock", "getFairLock", "getSpinLock", "getNonReentrantLock", "getNonReentrantFairLock",
                    "getReadWriteLock", "getFencedLock", "getSemaphore", "getPermitExpirableSemaphore",
                    "getCountDownLatch").map(getter -> getter + "(String)"),
            Stream.of("getMultiLock(org.redisson.api.RLock[])", "getRedLock(org.redisson.api.RLock[])", "getId()", "shutdown()",
                    "reactive()"))
            .map(signature -> new MethodMatcher(CLIENT + " " + signature, true))
            .toList();

    /** The getters with per-object options ({@code getLock(CommonOptions.name(n).timeout(d))}, 4.x). */
    private static final MethodMatcher OPTIONS_GETTER = new MethodMatcher(
            CLIENT + " get*(org.redisson.api.options.CommonOptions)", true);

    /**
     * Redisson 3.x's own RFuture methods (4.x has none): join() means what CompletableFuture's does,
     * onComplete is renamed to whenComplete; the others (getNow(), sync(), await(), isSuccess(),
     * cause()...) have no equal in CompletableFuture.
     */
    private static final MethodMatcher FUTURE_METHOD = new MethodMatcher("org.redisson.api.RFuture *(..)");
    private static final List<MethodMatcher> FUTURE_MIGRATED = List.of(
            new MethodMatcher("org.redisson.api.RFuture join()"),
            new MethodMatcher("org.redisson.api.RFuture onComplete(java.util.function.BiConsumer)"));

    /** Every reactive-client method: the lock getters were moved by {@link MigrateReactiveLocks}, the rest are marked. */
    private static final MethodMatcher ANY_REACTIVE_CLIENT_METHOD = new MethodMatcher(MigrateReactiveLocks.REACTIVE_CLIENT + " *(..)", true);
    /** What is left of RLockReactive after {@link MigrateReactiveLocks}: thread-id calls with no shape it knows. */
    private static final MethodMatcher ANY_REACTIVE_LOCK_METHOD = new MethodMatcher(MigrateReactiveLocks.REACTIVE_LOCK + " *(..)", true);

    private final transient UnmigratedRedissonCode unmigrated = new UnmigratedRedissonCode(this);

    /** A recipe with no options. */
    public FlagUnmigratableRedissonCode() {
    }

    @Override
    public String getDisplayName() {
        return "Mark Redisson code with no relock equivalent";
    }

    @Override
    public String getDescription() {
        return "Marks `Redisson.create(...)`, the `RedissonClient` methods relock's `LockClient` lacks and "
                + "Redisson 3's `RFuture` methods `CompletableFuture` lacks with a `TODO relock:` comment, "
                + "and lists them in a data table.";
    }

    @Override
    public TreeVisitor<?, ExecutionContext> getVisitor() {
        return Preconditions.check(Preconditions.or(new UsesType<>("org.redisson.Redisson", false),
                new UsesType<>(CLIENT, false), new UsesType<>("org.redisson.api.RFuture", false),
                new UsesType<>(MigrateReactiveLocks.REACTIVE_CLIENT, false), new UsesType<>(MigrateReactiveLocks.REACTIVE_LOCK, false)), new JavaIsoVisitor<>() {
                    @Override
                    public J.MethodInvocation visitMethodInvocation(J.MethodInvocation method, ExecutionContext ctx) {
                        J.MethodInvocation m = super.visitMethodInvocation(method, ctx);
                        if (CREATE.matches(m)) {
                            return unmigrated.mark(m, getCursor().getParentOrThrow(), ctx,
                                    "build the LockClient on your own Redis client, RedisLocks.create(yourRedisClient);"
                                            + " a Redisson Config does not translate (see the migration guide)");
                        }
                        if (OPTIONS_GETTER.matches(m)) {
                            return unmigrated.mark(m, getCursor().getParentOrThrow(), ctx,
                                    "use lockClient.withCommandTimeout(timeout)." + m.getSimpleName() + "(name) for the"
                                            + " options' timeout; relock has no retryAttempts/retryInterval/retryDelay"
                                            + " (it never resends a lock script)");
                        }
                        if (ANY_CLIENT_METHOD.matches(m) && MIGRATED.stream().noneMatch(matcher -> matcher.matches(m))) {
                            return unmigrated.mark(m, getCursor().getParentOrThrow(), ctx,
                                    "LockClient has no " + m.getSimpleName() + " with these arguments;"
                                            + " keep a Redisson client for it or rewrite the call");
                        }
                        if (ANY_REACTIVE_CLIENT_METHOD.matches(m)
                                && MigrateReactiveLocks.LOCK_GETTERS.stream().noneMatch(matcher -> matcher.matches(m))) {
                            return unmigrated.mark(m, getCursor().getParentOrThrow(), ctx,
                                    "relock's Reactor view has locks only (ReactiveLock.of(client.getLock(name)));"
                                            + " keep a Redisson client for " + m.getSimpleName() + " or use the async API");
                        }
                        if (ANY_REACTIVE_LOCK_METHOD.matches(m)) {
                            return unmigrated.mark(m, getCursor().getParentOrThrow(), ctx,
                                    "ReactiveLock has leases, not thread ids: use acquire(wait) and release(lease),"
                                            + " or withLockMono(wait, lease -> work)");
                        }
                        if (FUTURE_METHOD.matches(m) && FUTURE_MIGRATED.stream().noneMatch(matcher -> matcher.matches(m))) {
                            return unmigrated.mark(m, getCursor().getParentOrThrow(), ctx,
                                    "CompletableFuture has no " + m.getSimpleName() + " like Redisson 3's RFuture;"
                                            + " use join(), get(), getNow(default) or whenComplete(...)");
                        }
                        return m;
                    }
                });
    }
}
