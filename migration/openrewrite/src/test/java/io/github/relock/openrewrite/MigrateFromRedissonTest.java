package io.github.relock.openrewrite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.openrewrite.java.Assertions.java;

import io.github.relock.api.LockClient;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.openrewrite.java.JavaParser;
import org.openrewrite.java.tree.J;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;
import org.openrewrite.test.SourceSpec;
import org.redisson.api.RedissonClient;

/** The composite recipe on Redisson sources: what it rewrites, and what it marks and leaves. */
class MigrateFromRedissonTest implements RewriteTest {

    /** One parser configuration for every test: Redisson for the sources before, relock's API for after. */
    static final JavaParser.Builder<?, ?> PARSER = JavaParser.fromJavaVersion()
            .classpath(List.of(jarOf(RedissonClient.class), jarOf(LockClient.class)));

    @Override
    public void defaults(RecipeSpec spec) {
        spec.recipeFromResources("io.github.relock.openrewrite.MigrateFromRedisson").parser(PARSER);
    }

    /** The migrated source builds with relock's API alone on the class path. */
    static Consumer<SourceSpec<J.CompilationUnit>> compilesAgainstRelock() {
        return spec -> spec.afterRecipe(cu -> CompilesAgainstRelock.check(cu, jarOf(LockClient.class)));
    }

    static Path jarOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void clientLocksSynchronizersAndFutures_becomeRelocksTypes_gettersKeepTheirNames() {
        rewriteRun(java(
                """
                import java.util.concurrent.TimeUnit;
                import org.redisson.api.RCountDownLatch;
                import org.redisson.api.RFencedLock;
                import org.redisson.api.RFuture;
                import org.redisson.api.RLock;
                import org.redisson.api.RPermitExpirableSemaphore;
                import org.redisson.api.RReadWriteLock;
                import org.redisson.api.RSemaphore;
                import org.redisson.api.RedissonClient;

                class Orders {
                    private final RedissonClient redisson;

                    Orders(RedissonClient redisson) {
                        this.redisson = redisson;
                    }

                    void ship(String id) throws InterruptedException {
                        RLock lock = redisson.getLock("order:" + id);
                        RLock fair = redisson.getFairLock("fair");
                        RLock spin = redisson.getSpinLock("spin");
                        RReadWriteLock rw = redisson.getReadWriteLock("rw");
                        RFencedLock fenced = redisson.getFencedLock("fenced");
                        RSemaphore semaphore = redisson.getSemaphore("s");
                        RPermitExpirableSemaphore permits = redisson.getPermitExpirableSemaphore("p");
                        RCountDownLatch latch = redisson.getCountDownLatch("l");
                        RLock group = redisson.getMultiLock(lock, fair);
                        RLock quorum = redisson.getRedLock(lock, fair);
                        RLock once = redisson.getNonReentrantLock("once");
                        if (lock.tryLock(1, 10, TimeUnit.SECONDS)) {
                            try {
                                rw.readLock().lock();
                                Long token = fenced.lockAndGetToken();
                                semaphore.acquire();
                                latch.countDown();
                            } finally {
                                lock.unlock();
                            }
                        }
                        RFuture<Boolean> attempt = fair.tryLockAsync();
                        attempt.thenAccept(held -> spin.unlockAsync());
                    }

                    String who() {
                        return redisson.getId();
                    }

                    void stop() {
                        redisson.shutdown();
                    }
                }
                """,
                """
                import java.util.concurrent.CompletableFuture;
                import java.util.concurrent.TimeUnit;

                import io.github.relock.api.*;

                class Orders {
                    private final LockClient redisson;

                    Orders(LockClient redisson) {
                        this.redisson = redisson;
                    }

                    void ship(String id) throws InterruptedException {
                        DistributedLock lock = redisson.getLock("order:" + id);
                        DistributedLock fair = redisson.getFairLock("fair");
                        DistributedLock spin = redisson.getSpinLock("spin");
                        ReadWriteDistributedLock rw = redisson.getReadWriteLock("rw");
                        FencedLock fenced = redisson.getFencedLock("fenced");
                        DistributedSemaphore semaphore = redisson.getSemaphore("s");
                        PermitExpirableSemaphore permits = redisson.getPermitExpirableSemaphore("p");
                        DistributedCountDownLatch latch = redisson.getCountDownLatch("l");
                        DistributedLock group = redisson.getMultiLock(lock, fair);
                        DistributedLock quorum = redisson.getRedLock(lock, fair);
                        DistributedLock once = redisson.getNonReentrantLock("once");
                        if (lock.tryLock(1, 10, TimeUnit.SECONDS)) {
                            try {
                                rw.readLock().lock();
                                Long token = fenced.lockAndGetToken();
                                semaphore.acquire();
                                latch.countDown();
                            } finally {
                                lock.unlock();
                            }
                        }
                        CompletableFuture<Boolean> attempt = fair.tryLockAsync();
                        attempt.thenAccept(held -> spin.unlockAsync());
                    }

                    String who() {
                        return redisson.clientId();
                    }

                    void stop() {
                        redisson.close();
                    }
                }
                """, compilesAgainstRelock()));
    }

    @Test
    void multiLockConstructor_becomesAClientCall_onTheClientItsLocksComeFrom() {
        rewriteRun(java(
                """
                import org.redisson.RedissonMultiLock;
                import org.redisson.api.RedissonClient;

                class Transfer {
                    void run(RedissonClient accounts) {
                        RedissonMultiLock both = new RedissonMultiLock(accounts.getLock("a"), accounts.getLock("b"));
                        both.lock();
                        both.unlock();
                    }
                }
                """,
                """
                import io.github.relock.api.DistributedLock;
                import io.github.relock.api.LockClient;

                class Transfer {
                    void run(LockClient accounts) {
                        DistributedLock both = accounts.getMultiLock(accounts.getLock("a"), accounts.getLock("b"));
                        both.lock();
                        both.unlock();
                    }
                }
                """, compilesAgainstRelock()));
    }

    @Test
    void redLockConstructor_usesTheOneClientInScope() {
        rewriteRun(java(
                """
                import org.redisson.RedissonRedLock;
                import org.redisson.api.RLock;
                import org.redisson.api.RedissonClient;

                class Quorum {
                    private final RedissonClient client;

                    Quorum(RedissonClient client) {
                        this.client = client;
                    }

                    RLock of(RLock a, RLock b, RLock c) {
                        return new RedissonRedLock(a, b, c);
                    }
                }
                """,
                """
                import io.github.relock.api.DistributedLock;
                import io.github.relock.api.LockClient;

                class Quorum {
                    private final LockClient client;

                    Quorum(LockClient client) {
                        this.client = client;
                    }

                    DistributedLock of(DistributedLock a, DistributedLock b, DistributedLock c) {
                        return client.getRedLock(a, b, c);
                    }
                }
                """, compilesAgainstRelock()));
    }

    @Test
    void multiLockWithoutAClientInScope_isMarked_andKeepsItsRedissonType() {
        rewriteRun(
                spec -> spec.dataTable(UnmigratedRedissonCode.Row.class, rows -> assertThat(rows)
                        .extracting(UnmigratedRedissonCode.Row::code)
                        .containsExactly("new RedissonMultiLock(a, b)")),
                java(
                        """
                        import org.redisson.RedissonMultiLock;
                        import org.redisson.api.RLock;

                        class Pair {
                            static RedissonMultiLock of(RLock a, RLock b) {
                                return new RedissonMultiLock(a, b);
                            }
                        }
                        """,
                        """
                        import io.github.relock.api.DistributedLock;
                        import org.redisson.RedissonMultiLock;

                        class Pair {
                            static RedissonMultiLock of(DistributedLock a, DistributedLock b) {
                                return /*~~(TODO relock: no single RedissonClient in scope; use lockClient.getMultiLock(...))~~>*/new RedissonMultiLock(a, b);
                            }
                        }
                        """));
    }

    @Test
    void multiLockWithTwoClientsInScope_isMarked() {
        rewriteRun(java(
                """
                import org.redisson.RedissonMultiLock;
                import org.redisson.api.RLock;
                import org.redisson.api.RedissonClient;

                class Two {
                    RedissonClient east;
                    RedissonClient west;

                    RLock of(RLock a, RLock b) {
                        return new RedissonMultiLock(a, b);
                    }
                }
                """,
                """
                import io.github.relock.api.DistributedLock;
                import io.github.relock.api.LockClient;
                import org.redisson.RedissonMultiLock;

                class Two {
                    LockClient east;
                    LockClient west;

                    DistributedLock of(DistributedLock a, DistributedLock b) {
                        return /*~~(TODO relock: no single RedissonClient in scope; use lockClient.getMultiLock(...))~~>*/new RedissonMultiLock(a, b);
                    }
                }
                """));
    }

    @Test
    void redissonCreate_andClientMethodsRelockLacks_areMarkedAndListed() {
        rewriteRun(
                spec -> spec.dataTable(UnmigratedRedissonCode.Row.class, rows -> assertThat(rows)
                        .extracting(UnmigratedRedissonCode.Row::code)
                        .containsExactlyInAnyOrder("Redisson.create(config)", "redisson.getMap(\"m\")",
                                "redisson.shutdown(0, 5, TimeUnit.SECONDS)")),
                java(
                        """
                        import java.util.concurrent.TimeUnit;
                        import org.redisson.Redisson;
                        import org.redisson.api.RedissonClient;
                        import org.redisson.config.Config;

                        class App {
                            void run() {
                                Config config = new Config();
                                config.useSingleServer().setAddress("redis://127.0.0.1:6379");
                                RedissonClient redisson = Redisson.create(config);
                                redisson.getMap("m").put("k", "v");
                                redisson.getLock("l").lock();
                                redisson.shutdown(0, 5, TimeUnit.SECONDS);
                            }
                        }
                        """,
                        """
                        import java.util.concurrent.TimeUnit;

                        import io.github.relock.api.LockClient;
                        import org.redisson.Redisson;
                        import org.redisson.config.Config;

                        class App {
                            void run() {
                                Config config = new Config();
                                config.useSingleServer().setAddress("redis://127.0.0.1:6379");
                                LockClient redisson = /*~~(TODO relock: build the LockClient on your own Redis client, RedisLocks.create(yourRedisClient); a Redisson Config does not translate (see the migration guide))~~>*/Redisson.create(config);
                                /*~~(TODO relock: LockClient has no getMap with these arguments; keep a Redisson client for it or rewrite the call)~~>*/redisson.getMap("m").put("k", "v");
                                redisson.getLock("l").lock();
                                /*~~(TODO relock: LockClient has no shutdown with these arguments; keep a Redisson client for it or rewrite the call)~~>*/redisson.shutdown(0, 5, TimeUnit.SECONDS);
                            }
                        }
                        """));
    }

    @Test
    void perObjectOptionsGetter_isMarkedWithTheTimeoutView() {
        rewriteRun(
                java(
                        """
                        import java.time.Duration;
                        import org.redisson.api.RedissonClient;
                        import org.redisson.api.options.CommonOptions;

                        class App {
                            void run(RedissonClient redisson) {
                                redisson.getLock(CommonOptions.name("l").timeout(Duration.ofMillis(200))).lock();
                            }
                        }
                        """,
                        """
                        import java.time.Duration;

                        import io.github.relock.api.LockClient;
                        import org.redisson.api.options.CommonOptions;

                        class App {
                            void run(LockClient redisson) {
                                /*~~(TODO relock: use lockClient.withCommandTimeout(timeout).getLock(name) for the options' timeout; relock has no retryAttempts/retryInterval/retryDelay (it never resends a lock script))~~>*/redisson.getLock(CommonOptions.name("l").timeout(Duration.ofMillis(200))).lock();
                            }
                        }
                        """));
    }

    @Test
    void multiLockInALambda_usesTheLocalClientDeclaredBeforeIt_notOneDeclaredAfter() {
        rewriteRun(java(
                """
                import java.util.function.Supplier;
                import org.redisson.RedissonMultiLock;
                import org.redisson.api.RLock;
                import org.redisson.api.RedissonClient;

                class Local {
                    Supplier<RLock> of(RLock a, RLock b, Supplier<RedissonClient> clients) {
                        RedissonClient first = clients.get();
                        Supplier<RLock> both = () -> new RedissonMultiLock(a, b);
                        RedissonClient second = clients.get();
                        return both;
                    }
                }
                """,
                """
                import java.util.function.Supplier;

                import io.github.relock.api.DistributedLock;
                import io.github.relock.api.LockClient;

                class Local {
                    Supplier<DistributedLock> of(DistributedLock a, DistributedLock b, Supplier<LockClient> clients) {
                        LockClient first = clients.get();
                        Supplier<DistributedLock> both = () -> first.getMultiLock(a, b);
                        LockClient second = clients.get();
                        return both;
                    }
                }
                """, compilesAgainstRelock()));
    }

    @Test
    void multiLockInAStaticMethod_doesNotTakeAnInstanceField_butAStaticOne() {
        rewriteRun(java(
                """
                import org.redisson.RedissonMultiLock;
                import org.redisson.api.RLock;
                import org.redisson.api.RedissonClient;

                class Holder {
                    static RedissonClient shared;
                    RedissonClient own;

                    static RLock of(RLock a, RLock b) {
                        return new RedissonMultiLock(a, b);
                    }
                }
                """,
                """
                import io.github.relock.api.DistributedLock;
                import io.github.relock.api.LockClient;

                class Holder {
                    static LockClient shared;
                    LockClient own;

                    static DistributedLock of(DistributedLock a, DistributedLock b) {
                        return shared.getMultiLock(a, b);
                    }
                }
                """, compilesAgainstRelock()));
    }
}
